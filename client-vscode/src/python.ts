/** The Python side of launching: the Python extension's interpreter and the `import turnlens` check. */
import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import type { Executable } from './pure/launch';

const PYTHON_EXTENSION = 'ms-python.python';

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath?(resource?: vscode.Uri): { path: string } | undefined;
  resolveEnvironment?(env: unknown): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
}

interface PythonExtensionApi {
  environments?: PythonEnvironmentsApi;
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] };
    onDidChangeExecutionDetails?: vscode.Event<unknown>;
  };
}

async function pythonApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (!extension) return undefined;
  return extension.isActive ? extension.exports : await extension.activate();
}

/** The interpreter the Python extension selected for `resource`, as an argv prefix. */
export async function pythonExtensionInterpreter(
  resource: vscode.Uri | undefined,
  log: (line: string) => void,
): Promise<string[] | undefined> {
  try {
    const api = await pythonApi();
    if (!api) return undefined;
    const envs = api.environments;
    if (envs?.getActiveEnvironmentPath && envs.resolveEnvironment) {
      const active = envs.getActiveEnvironmentPath(resource);
      const resolved = active ? await envs.resolveEnvironment(active) : undefined;
      const executable = resolved?.executable?.uri?.fsPath;
      if (executable) return [executable];
    }
    const command = api.settings?.getExecutionDetails?.(resource).execCommand;
    if (Array.isArray(command) && command.length && command.every((part) => typeof part === 'string')) {
      return command;
    }
  } catch (error) {
    log(`Could not ask the Python extension for its interpreter: ${String(error)}`);
  }
  return undefined;
}

/** Calls `listener` when the Python extension's selected interpreter changes. */
export async function onPythonInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  try {
    const api = await pythonApi();
    const event = api?.environments?.onDidChangeActiveEnvironmentPath ?? api?.settings?.onDidChangeExecutionDetails;
    return event ? event(() => listener()) : undefined;
  } catch {
    return undefined;
  }
}

export interface CheckResult {
  ok: boolean;
  /** stderr (or the spawn error) when not ok. */
  error: string;
}

/** Runs a short command (the import check) with a timeout, where and as the server will run. */
export function runCheck(
  exe: Executable,
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 20000,
): Promise<CheckResult> {
  return new Promise((resolve) => {
    execFile(exe.command, exe.args, { cwd, env, timeout: timeoutMs, windowsHide: true }, (error, _stdout, stderr) => {
      if (!error) {
        resolve({ ok: true, error: '' });
        return;
      }
      const detail = stderr.trim() || error.message;
      resolve({ ok: false, error: detail });
    });
  });
}
