/**
 * How to start `turnlens serve`. Pure: the caller passes in the settings and what the Python
 * extension reports; this module decides. Order (docs/editors/vscode.md):
 *   1. `turnlens.server.command` (an argv array) when set — used as is;
 *   2. the interpreter in `turnlens.server.python`;
 *   3. the Python extension's active interpreter (ms-python.python), when installed;
 *   4. `python3` on PATH (`python` on Windows).
 * In 2–4 the server runs as `<python> -m turnlens serve`, after checking `import turnlens` works.
 */

export type LaunchOrigin = 'server.command' | 'server.python' | 'python extension' | 'PATH';

export interface LaunchInputs {
  /** `turnlens.server.command` (anything: it is validated here). */
  command: unknown;
  /** `turnlens.server.python` (anything: it is validated here). */
  python: unknown;
  /** The Python extension's interpreter as an argv prefix (e.g. ['/venv/bin/python']), if any. */
  extensionPython?: readonly string[];
  platform?: string;
  /** For `${workspaceFolder}`, `${userHome}` and `~` in the settings. */
  workspaceFolder?: string;
  home?: string;
}

export interface Executable {
  command: string;
  args: string[];
}

export interface LaunchPlan {
  /** The server process. */
  server: Executable;
  /** The interpreter (argv prefix) to check `import turnlens` with; absent for server.command. */
  python?: string[];
  origin: LaunchOrigin;
  /** Human-readable command line, for messages and the output channel. */
  display: string;
}

export const SERVER_MODULE_ARGS = ['-m', 'turnlens', 'serve'] as const;

export function defaultPython(platform: string = process.platform): string {
  return platform === 'win32' ? 'python' : 'python3';
}

/** Expands `${workspaceFolder}`, `${userHome}` and a leading `~` (as VS Code users expect in paths). */
export function expandPath(value: string, ctx: { workspaceFolder?: string; home?: string }): string {
  let out = value;
  if (ctx.workspaceFolder !== undefined) out = out.split('${workspaceFolder}').join(ctx.workspaceFolder);
  if (ctx.home !== undefined) {
    out = out.split('${userHome}').join(ctx.home);
    if (out === '~' || out.startsWith('~/')) out = ctx.home + out.slice(1);
  }
  return out;
}

/** A non-empty array of strings with no empty first element, or undefined. */
export function validArgv(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (!value.every((part) => typeof part === 'string')) return undefined;
  return value[0].trim() === '' ? undefined : value;
}

export function quoteArg(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function displayArgv(argv: readonly string[]): string {
  return argv.map(quoteArg).join(' ');
}

export function resolveLaunch(inputs: LaunchInputs): LaunchPlan {
  const ctx = { workspaceFolder: inputs.workspaceFolder, home: inputs.home };
  const command = validArgv(inputs.command);
  if (command) {
    const argv = [expandPath(command[0], ctx), ...command.slice(1).map((arg) => expandPath(arg, ctx))];
    return { server: { command: argv[0], args: argv.slice(1) }, origin: 'server.command', display: displayArgv(argv) };
  }
  let python: string[];
  let origin: LaunchOrigin;
  if (typeof inputs.python === 'string' && inputs.python.trim() !== '') {
    python = [expandPath(inputs.python.trim(), ctx)];
    origin = 'server.python';
  } else if (inputs.extensionPython && validArgv(inputs.extensionPython)) {
    python = [...inputs.extensionPython];
    origin = 'python extension';
  } else {
    python = [defaultPython(inputs.platform)];
    origin = 'PATH';
  }
  const argv = [...python, ...SERVER_MODULE_ARGS];
  return {
    server: { command: argv[0], args: argv.slice(1) },
    python,
    origin,
    display: displayArgv(argv),
  };
}

/** The command that checks `turnlens` is importable by the interpreter. */
export function importCheck(python: readonly string[]): Executable {
  return { command: python[0], args: [...python.slice(1), '-c', 'import turnlens'] };
}

/** The command a user runs to install TurnLens for that interpreter (TurnLens is installed from
 * a checkout of its repository or a wheel built from one; it is not on the package index yet). */
export function installCommand(python: readonly string[]): string {
  return `${displayArgv(python)} -m pip install <path to a TurnLens checkout or wheel>`;
}

/** The message shown when `import turnlens` fails (or the interpreter is missing). */
export function notInstalledMessage(plan: LaunchPlan, error: string): string {
  const who = displayArgv(plan.python ?? [plan.server.command]);
  const from =
    plan.origin === 'server.python'
      ? 'the interpreter in the setting turnlens.server.python'
      : plan.origin === 'python extension'
        ? "the Python extension's selected interpreter"
        : 'python3 on PATH';
  const reason = /ENOENT|not found|No such file/i.test(error)
    ? 'was not found'
    : 'cannot import the turnlens package';
  return `TurnLens: ${who} (${from}) ${reason}. Install TurnLens there, or set turnlens.server.python / turnlens.server.command.`;
}
