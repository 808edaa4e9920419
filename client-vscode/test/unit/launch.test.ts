import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultPython,
  displayArgv,
  expandPath,
  importCheck,
  installCommand,
  notInstalledMessage,
  resolveLaunch,
  safeWorkingDirectory,
  serverEnvironment,
  validArgv,
} from '../../src/pure/launch';

describe('resolveLaunch', () => {
  it('uses turnlens.server.command as is when set', () => {
    const plan = resolveLaunch({ command: ['/opt/venv/bin/turnlens', 'serve'], python: '/usr/bin/python3.12' });
    assert.equal(plan.origin, 'server.command');
    assert.deepEqual(plan.server, { command: '/opt/venv/bin/turnlens', args: ['serve'] });
    assert.equal(plan.python, undefined, 'no import check for an explicit command');
    assert.equal(plan.display, '/opt/venv/bin/turnlens serve');
  });

  it('falls back to turnlens.server.python with -P -m turnlens serve', () => {
    const plan = resolveLaunch({ command: [], python: ' /venv/bin/python ', extensionPython: ['/other/python'] });
    assert.equal(plan.origin, 'server.python');
    assert.deepEqual(plan.server, { command: '/venv/bin/python', args: ['-P', '-m', 'turnlens', 'serve'] });
    assert.deepEqual(plan.python, ['/venv/bin/python']);
  });

  it("then the Python extension's interpreter (an argv prefix)", () => {
    const plan = resolveLaunch({ command: [], python: '', extensionPython: ['conda', 'run', '-n', 'x', 'python'] });
    assert.equal(plan.origin, 'python extension');
    assert.deepEqual(plan.server, {
      command: 'conda',
      args: ['run', '-n', 'x', 'python', '-P', '-m', 'turnlens', 'serve'],
    });
    assert.deepEqual(plan.python, ['conda', 'run', '-n', 'x', 'python']);
  });

  it('then python3 on PATH (python on Windows)', () => {
    assert.equal(resolveLaunch({ command: undefined, python: undefined, platform: 'linux' }).server.command, 'python3');
    assert.equal(resolveLaunch({ command: undefined, python: undefined, platform: 'win32' }).server.command, 'python');
    assert.equal(resolveLaunch({ command: [], python: '', platform: 'linux' }).origin, 'PATH');
    assert.equal(defaultPython('darwin'), 'python3');
  });

  it('ignores unusable settings instead of failing', () => {
    for (const command of ['turnlens serve', [1, 2], [''], [' '], {}, null]) {
      const plan = resolveLaunch({ command, python: 42, platform: 'linux' });
      assert.equal(plan.origin, 'PATH', JSON.stringify(command));
    }
  });

  it('expands ${workspaceFolder}, ${userHome} and ~', () => {
    const ctx = { workspaceFolder: '/ws', home: '/home/me' };
    assert.equal(expandPath('${workspaceFolder}/.venv/bin/python', ctx), '/ws/.venv/bin/python');
    assert.equal(expandPath('~/venv/bin/python', ctx), '/home/me/venv/bin/python');
    assert.equal(expandPath('${userHome}/x', ctx), '/home/me/x');
    assert.equal(expandPath('a~b', ctx), 'a~b');
    const plan = resolveLaunch({ command: [], python: '${workspaceFolder}/.venv/bin/python', ...ctx });
    assert.equal(plan.server.command, '/ws/.venv/bin/python');
    const cmd = resolveLaunch({ command: ['~/bin/turnlens', '--log-file', '${workspaceFolder}/log'], python: '', ...ctx });
    assert.deepEqual(cmd.server, { command: '/home/me/bin/turnlens', args: ['--log-file', '/ws/log'] });
  });
});

describe('helpers', () => {
  it('validArgv accepts only non-empty string arrays', () => {
    assert.deepEqual(validArgv(['a', 'b']), ['a', 'b']);
    assert.equal(validArgv([]), undefined);
    assert.equal(validArgv(['a', 3]), undefined);
    assert.equal(validArgv('a'), undefined);
  });

  it('importCheck runs `-P -c "import turnlens"` with the same interpreter prefix', () => {
    assert.deepEqual(importCheck(['/venv/bin/python']), {
      command: '/venv/bin/python',
      args: ['-P', '-c', 'import turnlens'],
    });
    assert.deepEqual(importCheck(['py', '-3.12']), { command: 'py', args: ['-3.12', '-P', '-c', 'import turnlens'] });
  });

  it('quotes what a shell would split', () => {
    assert.equal(displayArgv(['/a b/python', '-c', "it's"]), `'/a b/python' -c 'it'\\''s'`);
    assert.equal(
      installCommand(['/venv/bin/python']),
      '/venv/bin/python -m pip install <path to a TurnLens checkout or wheel>',
    );
  });

  it('explains a missing interpreter and a missing package differently', () => {
    const plan = resolveLaunch({ command: [], python: '/nope/python' });
    assert.match(notInstalledMessage(plan, 'spawn /nope/python ENOENT'), /\/nope\/python .*was not found/);
    assert.match(
      notInstalledMessage(plan, "ModuleNotFoundError: No module named 'turnlens'"),
      /cannot import the turnlens package/,
    );
    assert.match(notInstalledMessage(resolveLaunch({ command: [], python: '' }), 'x'), /python3 on PATH/);
  });
});

describe('the workspace cannot shadow the turnlens package', () => {
  const interpreters: { python: unknown; extensionPython?: string[]; platform?: string }[] = [
    { python: '/venv/bin/python' },
    { python: '', extensionPython: ['/opt/py/bin/python3.12'] },
    { python: '', extensionPython: ['conda', 'run', '-n', 'x', 'python'] },
    { python: undefined, platform: 'linux' },
    { python: undefined, platform: 'win32' },
  ];

  it('both Python commands put -P right after the interpreter, before -c / -m', () => {
    for (const inputs of interpreters) {
      const plan = resolveLaunch({ command: [], ...inputs, workspaceFolder: '/ws' });
      const prefix = plan.python ?? [];
      assert.ok(prefix.length > 0, JSON.stringify(inputs));
      const server = [plan.server.command, ...plan.server.args];
      assert.deepEqual(server, [...prefix, '-P', '-m', 'turnlens', 'serve'], JSON.stringify(inputs));
      const check = importCheck(prefix);
      assert.deepEqual([check.command, ...check.args], [...prefix, '-P', '-c', 'import turnlens']);
      assert.match(plan.display, / -P -m turnlens serve$/);
    }
  });

  it('runs with PYTHONSAFEPATH=1 (covers a custom -m command and child processes) and keeps PYTHONPATH', () => {
    const env = serverEnvironment({ PATH: '/usr/bin', PYTHONPATH: '/src', PYTHONSAFEPATH: '0', GONE: undefined });
    assert.equal(env.PYTHONSAFEPATH, '1');
    assert.equal(env.PYTHONUNBUFFERED, '1');
    assert.equal(env.PYTHONPATH, '/src', 'not -I / -E: a PYTHONPATH set-up keeps working');
    assert.equal(env.PATH, '/usr/bin');
    assert.ok(!('GONE' in env));
  });

  it('never starts in a workspace folder or below one', () => {
    const storage = '/home/me/.vscode/globalStorage/turnlens.turnlens';
    assert.equal(safeWorkingDirectory([storage, '/home/me', '/tmp'], ['/home/me/project']), storage);
    // a workspace that holds the storage folder (or is the home folder) is skipped
    assert.equal(safeWorkingDirectory([storage, '/home/me', '/tmp'], ['/home/me']), '/tmp');
    assert.equal(safeWorkingDirectory(['/ws/sub', '/ws/'], ['/ws', '/other']), '/');
    assert.equal(safeWorkingDirectory([undefined, 'relative/dir', '/home/me'], ['/ws']), '/home/me');
    assert.equal(safeWorkingDirectory(['/tmp'], ['/']), '/', 'only the root is left');
    assert.equal(safeWorkingDirectory(['/wsx'], ['/ws']), '/wsx', 'a sibling with a common prefix is fine');
    assert.equal(
      safeWorkingDirectory(['C:\\Users\\me\\storage', 'D:\\tmp'], ['c:\\users\\me'], 'win32').toLowerCase(),
      'd:\\tmp',
    );
  });

  it('anchors a relative interpreter or program to the workspace folder (it no longer starts there)', () => {
    const plan = resolveLaunch({ command: [], python: '.venv/bin/python', workspaceFolder: '/ws' });
    assert.equal(plan.server.command, '/ws/.venv/bin/python');
    const cmd = resolveLaunch({ command: ['bin/turnlens', 'serve'], python: '', workspaceFolder: '/ws' });
    assert.equal(cmd.server.command, '/ws/bin/turnlens');
    assert.equal(resolveLaunch({ command: [], python: 'python3.12', workspaceFolder: '/ws' }).server.command, 'python3.12');
  });

  it('says so when the interpreter is too old for -P', () => {
    const plan = resolveLaunch({ command: [], python: '/usr/bin/python3.10' });
    assert.match(notInstalledMessage(plan, 'Unknown option: -P\nusage: ...'), /older than Python 3\.11/);
  });
});
