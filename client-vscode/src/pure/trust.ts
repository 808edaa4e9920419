/**
 * Workspace trust and the settings the server is given. Pure (no `vscode` import).
 *
 * Rules (SPEC §7, docs/editors/vscode.md):
 *  - The model back-end settings (router.backend / endpoint / model / apiKeyEnv) and the model
 *    files (models) reach the server from user (global) settings only, whatever a workspace's
 *    settings say (USER_ONLY_KEYS).
 *  - In an untrusted workspace (Restricted Mode) the back end is forced to `rules`: no network.
 *  - In an untrusted workspace the server launch settings (server.command / server.python) are
 *    read from user settings only, so a folder cannot make the editor run a program.
 *  - initializationOptions are `{settings, userSettings, workspaceTrusted, commandResults}`: the
 *    (sanitised) `turnlens` settings, the user-level back-end settings, whether the workspace is
 *    trusted, and `"json"`: this client renders command results itself (views.ts), so the server
 *    need not also send them as window/showMessage.
 *    The server takes the back end only from these (never from workspace/configuration answers),
 *    so a change of a back-end setting restarts the server (pure/ids.ts RESTART_KEYS).
 */

export const BACKEND_KEYS = ['router.backend', 'router.endpoint', 'router.model', 'router.apiKeyEnv'] as const;
/** Settings taken from user settings only: the back end, and which model files the server loads. */
export const USER_ONLY_KEYS: readonly string[] = [...BACKEND_KEYS, 'models'];
export const LAUNCH_KEYS = ['server.command', 'server.python'] as const;
/** Relative to `turnlens.`; package.json's restrictedConfigurations lists these with the prefix. */
export const RESTRICTED_KEYS: readonly string[] = [...BACKEND_KEYS, ...LAUNCH_KEYS];
export const SAFE_BACKEND = 'rules';

export type Settings = Record<string, unknown>;

/** What `WorkspaceConfiguration.inspect(key)` tells, reduced to what the rules need. */
export interface Inspected {
  defaultValue?: unknown;
  globalValue?: unknown;
  /** The effective value (`get(key)`): workspace/folder values included. */
  value?: unknown;
}

export function isPlainObject(value: unknown): value is Settings {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

export function getPath(obj: unknown, dotted: string): unknown {
  let node: unknown = obj;
  for (const part of dotted.split('.')) {
    if (!isPlainObject(node)) return undefined;
    node = node[part];
  }
  return node;
}

/** Sets (or, for `undefined`, deletes) a dotted key in place, creating objects on the way. */
export function setPath(obj: Settings, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node: Settings = obj;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (!isPlainObject(next)) {
      if (value === undefined) return;
      node[part] = {};
    }
    node = node[part] as Settings;
  }
  const last = parts[parts.length - 1];
  if (value === undefined) Reflect.deleteProperty(node, last);
  else node[last] = value;
}

/** A user-level value: the global value, else the default. */
export function userValue(inspected: Inspected | undefined): unknown {
  if (!inspected) return undefined;
  return inspected.globalValue !== undefined ? inspected.globalValue : inspected.defaultValue;
}

/** The value of a launch setting (server.command / server.python) under the trust rules. */
export function launchValue(inspected: Inspected | undefined, trusted: boolean): unknown {
  if (!inspected) return undefined;
  return trusted ? inspected.value : userValue(inspected);
}

/**
 * The user-level back-end settings, nested (`{router: {backend, endpoint, model, apiKeyEnv}, models}`),
 * with the back end forced to `rules` when the workspace is not trusted.
 */
export function userBackendSettings(inspect: (key: string) => Inspected | undefined, trusted: boolean): Settings {
  const out: Settings = {};
  for (const key of USER_ONLY_KEYS) {
    const value = userValue(inspect(key));
    if (value !== undefined) setPath(out, key, clone(value));
  }
  if (!trusted) setPath(out, 'router.backend', SAFE_BACKEND);
  return out;
}

/**
 * The nested `turnlens` settings object as the server should see it: the back-end keys replaced
 * by their user-level values, and the back end forced to `rules` when untrusted.
 */
export function sanitizeSettings(
  section: unknown,
  inspect: (key: string) => Inspected | undefined,
  trusted: boolean,
): Settings {
  const out: Settings = isPlainObject(section) ? clone(section) : {};
  const user = userBackendSettings(inspect, trusted);
  for (const key of USER_ONLY_KEYS) setPath(out, key, getPath(user, key));
  return out;
}

/** `settings` (the `turnlens` section), `userSettings` (back end, user level), `workspaceTrusted`, `commandResults`. */
export interface InitializationOptions {
  settings: Settings;
  userSettings: Settings;
  workspaceTrusted: boolean;
  commandResults: 'json';
}

export function initializationOptions(
  section: unknown,
  inspect: (key: string) => Inspected | undefined,
  trusted: boolean,
): InitializationOptions {
  return {
    settings: sanitizeSettings(section, inspect, trusted),
    userSettings: userBackendSettings(inspect, trusted),
    workspaceTrusted: trusted,
    commandResults: 'json',
  };
}

/**
 * Sanitises one answer to a workspace/configuration item: `turnlens` (the whole section),
 * `turnlens.router` and the like (a part of it), or anything else (returned unchanged).
 */
export function sanitizeConfigurationItem(
  section: string | null | undefined,
  value: unknown,
  inspect: (key: string) => Inspected | undefined,
  trusted: boolean,
): unknown {
  if (section === 'turnlens') return sanitizeSettings(value, inspect, trusted);
  if (!section?.startsWith('turnlens.')) return value;
  const sub = section.slice('turnlens.'.length);
  const wrapped: Settings = {};
  setPath(wrapped, sub, clone(value));
  const touched = USER_ONLY_KEYS.some((key) => key === sub || key.startsWith(sub + '.'));
  if (!touched) return value;
  return getPath(sanitizeSettings(wrapped, inspect, trusted), sub);
}
