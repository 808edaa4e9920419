// End-to-end: a Claude Code session file (JSON Lines) opened in a real VS Code (code-server 4.100.3)
// gets a label on every message, the same ones `turnlens check` prints. Needs `npm run package` first.
//   TURNLENS_E2E_SCREENSHOT=0  do not rewrite docs/img/vscode-session.png
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO, saveArtifact, serverPython, sleep, startEditor, waitFor } from './harness.mjs';
import { editor, failureShot, inlayHintTexts, openFile, statusItem } from './workbench.mjs';

const TIMEOUT = 120000;
const EXAMPLE = join(REPO, 'docs', 'examples', 'claude-session.jsonl');

/** What the CLI says of every message: class and routed effort (null when not routed), in order. */
function cliUnits() {
  const out = execFileSync(serverPython(), ['-m', 'turnlens', 'check', '--format', 'json', EXAMPLE], { encoding: 'utf8' });
  return JSON.parse(out).map((item) => ({ cls: item.class, effort: item.route ? item.route.effort : undefined, role: item.role }));
}

describe('VS Code (code-server 4.100.3): a Claude Code session', { timeout: 4 * TIMEOUT }, () => {
  let session;
  let page;
  const units = cliUnits();

  before(async () => {
    session = await startEditor({
      name: 'session',
      files: { 'claude-session.jsonl': readFileSync(EXAMPLE, 'utf8') },
      userSettings: { 'editor.fontSize': 13 },
      viewport: { width: 1440, height: 1100 },
    });
    page = session.page;
    await openFile(page, 'claude-session.jsonl');
  });

  after(async () => {
    if (page) await failureShot(page, 'session-last');
    await session?.stop();
  });

  it('labels every message with an inlay hint, as the CLI does', { timeout: TIMEOUT }, async () => {
    const hints = await waitFor('inlay hints on the session', async () => {
      const found = await inlayHintTexts(page);
      return found.length >= units.length ? found : null;
    }, 60000).catch(async (error) => {
      await failureShot(page, 'session-no-hints');
      throw error;
    });
    assert.equal(hints.length, units.length);
    const classes = hints.map((hint) => hint.split(' ')[0].replace(/\?$/, ''));
    assert.deepEqual([...classes].sort(), units.map((unit) => unit.cls).sort());
    // only the user's prompts carry an effort
    const withEffort = hints.filter((hint) => hint.includes(' · ')).length;
    assert.equal(withEffort, units.filter((unit) => unit.effort !== undefined).length);
  });

  it('shows the last prompt’s class and effort in the status bar, and takes the screenshot', { timeout: TIMEOUT }, async () => {
    const last = units.filter((unit) => unit.effort !== undefined).pop();
    const status = statusItem(page);
    await waitFor('status bar', async () => {
      const text = (await status.innerText().catch(() => '')) || '';
      return text.includes(last.cls) ? text : null;
    }, 30000);
    await editor(page).click({ position: { x: 600, y: 300 } });
    await sleep(300);
    const png = await page.screenshot();
    saveArtifact('vscode-session.png', png);
    if (process.env.TURNLENS_E2E_SCREENSHOT !== '0') {
      mkdirSync(join(REPO, 'docs', 'img'), { recursive: true });
      writeFileSync(join(REPO, 'docs', 'img', 'vscode-session.png'), png);
    }
  });
});
