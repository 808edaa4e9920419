// End-to-end: a workspace that holds its own `turnlens/` package (and a `pygls/` one) cannot get
// its code run by the extension. Before the server starts the extension runs
// `<python> -c "import turnlens"`, then `<python> -m turnlens serve`; both put the working
// directory first on sys.path unless told not to. The planted modules write a marker file when
// imported: the server must start from the installed package, label the document, and no marker
// may appear — in Restricted Mode with the default launch, and in a trusted folder with a user's
// own `turnlens.server.command` of the form `python -m turnlens serve`. Needs `npm run package`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { outputLog, serverPython, startEditor, waitFor } from './harness.mjs';
import { LENS_RE, codeLensTexts, failureShot, inlayHintTexts, openFile } from './workbench.mjs';

const TIMEOUT = 120000;
const MARKER = 'SHADOWED-BY-WORKSPACE';

/** Planted modules: importing any of them writes MARKER next to the package (in the workspace). */
function plantedFiles() {
  const body = [
    'import pathlib',
    `pathlib.Path(__file__).resolve().parent.parent.joinpath(${JSON.stringify(MARKER)}).write_text(__name__ + "\\n")`,
    '',
  ].join('\n');
  return {
    'turnlens/__init__.py': body,
    'turnlens/__main__.py': body,
    'pygls/__init__.py': body,
  };
}

function plantInto(folder) {
  for (const [file, text] of Object.entries(plantedFiles())) {
    mkdirSync(join(folder, file, '..'), { recursive: true });
    writeFileSync(join(folder, file), text);
  }
}

describe('the workspace cannot shadow the turnlens package', () => {
  it('the planted package is live: the old launch (cwd = workspace, no -P) runs it', () => {
    const folder = mkdtempSync(join(tmpdir(), 'turnlens-shadow-'));
    try {
      plantInto(folder);
      execFileSync(serverPython(), ['-c', 'import turnlens'], { cwd: folder, stdio: 'pipe' });
      assert.ok(existsSync(join(folder, MARKER)), 'the fixture must be able to fail the test');
      rmSync(join(folder, MARKER));
      // the launch the extension uses now, run in that same folder, does not
      execFileSync(serverPython(), ['-P', '-c', 'import turnlens'], { cwd: folder, stdio: 'pipe' });
      assert.ok(!existsSync(join(folder, MARKER)));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  const cases = [
    {
      name: 'shadow-restricted',
      title: 'Restricted Mode, default launch (turnlens.server.python)',
      trusted: false,
      userSettings: () => ({ 'turnlens.server.command': [], 'turnlens.server.python': serverPython() }),
      launched: /-P -m turnlens serve \(from server\.python\)/,
    },
    {
      name: 'shadow-command',
      title: 'trusted folder, the user’s own `python -m turnlens serve` command',
      trusted: true,
      userSettings: () => ({ 'turnlens.server.command': [serverPython(), '-m', 'turnlens', 'serve'] }),
      launched: /-m turnlens serve \(from server\.command\)/,
    },
  ];

  for (const spec of cases) {
    describe(`VS Code (code-server 4.100.3): ${spec.title}`, { timeout: 4 * TIMEOUT }, () => {
      let session;
      let page;

      before(async () => {
        session = await startEditor({
          name: spec.name,
          trusted: spec.trusted,
          userSettings: spec.userSettings(),
          files: plantedFiles(),
        });
        page = session.page;
      });

      after(async () => {
        if (page) await failureShot(page, `${spec.name}-last`);
        await session?.stop();
      });

      it('starts the installed server, which labels the document', { timeout: TIMEOUT }, async () => {
        await openFile(page, 'session.md');
        await waitFor('inlay hints', async () => (await inlayHintTexts(page)).length > 0, 60000);
        await waitFor('code lenses', async () => (await codeLensTexts(page)).some((t) => LENS_RE.test(t)), 60000);
        const log = await waitFor('the output log on disk', async () => {
          const text = outputLog(session.dirs);
          return /router back end: /.test(text) ? text : null;
        }, 30000);
        assert.match(log, spec.launched);
        const cwd = /Server working directory: (.*) \(outside the workspace\)/.exec(log)?.[1];
        assert.ok(cwd, 'the working directory is logged');
        assert.ok(!cwd.startsWith(session.dirs.workspace), `${cwd} is outside ${session.dirs.workspace}`);
      });

      it('never ran the workspace’s turnlens/ or pygls/ code', { timeout: TIMEOUT }, async () => {
        assert.ok(existsSync(join(session.dirs.workspace, 'turnlens', '__init__.py')));
        assert.ok(!existsSync(join(session.dirs.workspace, MARKER)), 'a planted module was imported');
      });
    });
  }
});
