/** Reading the `turnlens` settings from VS Code, under the trust rules of pure/trust.ts. */
import * as vscode from 'vscode';
import { SECTION } from './pure/ids';
import { DocumentFilter, toDocumentFilters } from './pure/selector';
import {
  Inspected,
  InitializationOptions,
  initializationOptions,
  launchValue,
  sanitizeConfigurationItem,
} from './pure/trust';

export function isTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

function config(resource?: vscode.Uri): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION, resource ?? null);
}

/** `inspect` for keys under `turnlens.`, in the shape the pure trust rules take. */
export function inspector(resource?: vscode.Uri): (key: string) => Inspected | undefined {
  const cfg = config(resource);
  return (key) => {
    const inspected = cfg.inspect(key);
    if (!inspected) return undefined;
    return { defaultValue: inspected.defaultValue, globalValue: inspected.globalValue, value: cfg.get(key) };
  };
}

/** The whole `turnlens` section as plain JSON (methods of WorkspaceConfiguration dropped). */
export function sectionObject(resource?: vscode.Uri): Record<string, unknown> {
  return JSON.parse(JSON.stringify(config(resource))) as Record<string, unknown>;
}

export function initOptions(): InitializationOptions {
  const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
  return initializationOptions(sectionObject(resource), inspector(resource), isTrusted());
}

/** Applies the trust rules to one answer of a workspace/configuration request. */
export function sanitizeItem(section: string | null | undefined, value: unknown, scopeUri?: string): unknown {
  const resource = scopeUri ? vscode.Uri.parse(scopeUri) : undefined;
  return sanitizeConfigurationItem(section, value, inspector(resource), isTrusted());
}

export interface LaunchSettings {
  command: unknown;
  python: unknown;
}

/** server.command and server.python; from user settings only when the workspace is untrusted. */
export function launchSettings(): LaunchSettings {
  const inspect = inspector(vscode.workspace.workspaceFolders?.[0]?.uri);
  const trusted = isTrusted();
  return {
    command: launchValue(inspect('server.command'), trusted),
    python: launchValue(inspect('server.python'), trusted),
  };
}

export function documentFilters(): DocumentFilter[] {
  return toDocumentFilters(config().get('documentSelector'));
}

export function isTurnLensDocument(document: vscode.TextDocument): boolean {
  return vscode.languages.match(documentFilters(), document) > 0;
}

/** A boolean setting such as `codeLens.enable` for a document; `enable: false` turns all off. */
export function featureEnabled(key: string, resource?: vscode.Uri): boolean {
  const cfg = config(resource);
  return cfg.get<unknown>('enable', true) !== false && cfg.get<unknown>(key, true) !== false;
}

export function budget(resource?: vscode.Uri): number {
  const value = config(resource).get<unknown>('budget', 0);
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 0;
}

export interface ToggleResult {
  enabled: boolean;
  target: 'workspace' | 'user';
}

/** Flips a boolean setting, in the workspace settings when a folder is open, else the user's. */
export async function toggleSetting(key: string, resource?: vscode.Uri): Promise<ToggleResult> {
  const cfg = config(resource);
  const enabled = cfg.get<unknown>(key, true) === false;
  const inWorkspace = (vscode.workspace.workspaceFolders?.length ?? 0) > 0;
  await cfg.update(
    key,
    enabled,
    inWorkspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global,
  );
  return { enabled, target: inWorkspace ? 'workspace' : 'user' };
}
