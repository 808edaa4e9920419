/**
 * How to start `turnlens serve`. Pure: the caller passes in the settings and what the Python
 * extension reports; this module decides. Order (docs/editors/vscode.md):
 *   1. `turnlens.server.command` (an argv array) when set — used as is;
 *   2. the interpreter in `turnlens.server.python`;
 *   3. the Python extension's active interpreter (ms-python.python), when installed;
 *   4. `python3` on PATH (`python` on Windows).
 * In 2–4 the server runs as `<python> -P -m turnlens serve`, after checking `import turnlens` works.
 *
 * The workspace must never shadow the installed package: `-c` and `-m` put the working directory
 * first on `sys.path`, so a folder holding `turnlens/__init__.py` would run its own code. Three
 * layers (docs/security.md, "The VS Code extension"):
 *   - `-P` (Python 3.11+, which TurnLens requires) drops that implicit entry for our two commands;
 *   - `PYTHONSAFEPATH=1` in the environment does the same for a `turnlens.server.command` that
 *     runs `python -m turnlens serve` and for any Python child process of the server;
 *   - the working directory is a folder outside every workspace folder (`safeWorkingDirectory`),
 *     so neither an older interpreter in a custom command nor a relative or empty `PYTHONPATH`
 *     entry can reach the workspace.
 * Not `-I`: it also implies `-E` and `-s`, which drop `PYTHONPATH`, `PYTHONHOME` and the user
 * site-packages, so `pip install --user` and PYTHONPATH set-ups would stop finding TurnLens while
 * adding no protection the three layers above do not already give.
 */
import * as path from 'node:path';

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

/** `-P`: no implicit working-directory / script-directory entry on `sys.path` (Python 3.11+). */
export const SAFE_PATH_FLAG = '-P';
export const SERVER_MODULE_ARGS = [SAFE_PATH_FLAG, '-m', 'turnlens', 'serve'] as const;
export const IMPORT_CHECK_ARGS = [SAFE_PATH_FLAG, '-c', 'import turnlens'] as const;

/** The environment both commands run with: the caller's, plus the safe-path switch. */
export function serverEnvironment(base: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
  env.PYTHONUNBUFFERED = '1';
  env.PYTHONSAFEPATH = '1';
  return env;
}

function isInside(child: string, parent: string, pathApi: typeof path.posix): boolean {
  const rel = pathApi.relative(pathApi.resolve(parent), pathApi.resolve(child));
  return rel === '' || (!rel.startsWith('..') && !pathApi.isAbsolute(rel));
}

/**
 * The first candidate folder that is neither a workspace folder nor inside one (the extension's
 * global storage folder, then the home folder, then the temp folder), else the file-system root
 * of the first candidate. The server resolves nothing against its working directory.
 */
export function safeWorkingDirectory(
  candidates: readonly (string | undefined)[],
  workspaceFolders: readonly string[],
  platform: string = process.platform,
): string {
  const pathApi = platform === 'win32' ? path.win32 : path.posix;
  const usable = candidates.filter((c): c is string => typeof c === 'string' && pathApi.isAbsolute(c));
  for (const candidate of usable) {
    if (!workspaceFolders.some((folder) => isInside(candidate, folder, pathApi))) return pathApi.resolve(candidate);
  }
  return pathApi.parse(usable[0] ?? pathApi.resolve('/')).root;
}

/** A relative program path with a separator (`.venv/bin/python`) is the workspace folder's; the
 * server no longer starts there, so it is made absolute against that folder. */
function anchorProgram(program: string, workspaceFolder: string | undefined): string {
  if (workspaceFolder === undefined || path.isAbsolute(program) || !/[\\/]/.test(program)) return program;
  return path.join(workspaceFolder, program);
}

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
    const argv = [
      anchorProgram(expandPath(command[0], ctx), inputs.workspaceFolder),
      ...command.slice(1).map((arg) => expandPath(arg, ctx)),
    ];
    return { server: { command: argv[0], args: argv.slice(1) }, origin: 'server.command', display: displayArgv(argv) };
  }
  let python: string[];
  let origin: LaunchOrigin;
  if (typeof inputs.python === 'string' && inputs.python.trim() !== '') {
    python = [anchorProgram(expandPath(inputs.python.trim(), ctx), inputs.workspaceFolder)];
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

/** The command that checks `turnlens` is importable by the interpreter (with `-P`, as the server). */
export function importCheck(python: readonly string[]): Executable {
  return { command: python[0], args: [...python.slice(1), ...IMPORT_CHECK_ARGS] };
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
    : /unknown option:? -P|-P: unknown option/i.test(error)
      ? 'is older than Python 3.11, which TurnLens needs'
      : 'cannot import the turnlens package';
  return `TurnLens: ${who} (${from}) ${reason}. Install TurnLens there, or set turnlens.server.python / turnlens.server.command.`;
}
