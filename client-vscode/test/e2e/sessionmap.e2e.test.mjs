// End-to-end: "TurnLens: Show Session Map" on a Claude Code session in a real VS Code (code-server
// 4.100.3): the webview draws one mark per message with the classes and frozen flags `turnlens check`
// prints; clicking a mark selects that message in the editor; an edit redraws the map.
// Needs `npm run package` first.
//   TURNLENS_E2E_SCREENSHOT=0  do not rewrite docs/img/session-map-vscode.png
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO, saveArtifact, serverPython, sleep, startEditor, waitFor } from './harness.mjs';
import { editor, failureShot, inlayHintTexts, openFile, runCommand } from './workbench.mjs';

const TIMEOUT = 120000;
const EXAMPLE = join(REPO, 'docs', 'examples', 'claude-session.jsonl');
const NAME = 'claude-session.jsonl';
// typed at the start of the last prompt: a standing rule, which the compaction guard keeps word for word
const EDIT = 'Always reply in French. ';

/** What the CLI says of every message of `text`: line, column (1-based), class, frozen. */
function cliUnits(text) {
  const dir = mkdtempSync(join(tmpdir(), 'turnlens-e2e-map-'));
  try {
    writeFileSync(join(dir, NAME), text);
    const out = execFileSync(serverPython(), ['-m', 'turnlens', 'check', '--format', 'json', join(dir, NAME)], { encoding: 'utf8' });
    return JSON.parse(out).map((item) => ({ line: item.line, column: item.column, cls: item.class, frozen: item.frozen, role: item.role }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The frame of the session map's page: VS Code nests it in an iframe inside an iframe. */
async function mapFrame(page) {
  return waitFor('the session map webview', async () => {
    for (const frame of page.frames()) {
      const found = await frame.$('#timeline').catch(() => null);
      if (found) return frame;
    }
    return null;
  }, 60000);
}

async function marks(frame) {
  return frame.$$eval('#timeline .mark', (all) => all.map((m) => ({ cls: m.dataset.class, frozen: m.dataset.frozen, role: m.dataset.role })));
}

/** How many session map tabs and pages are open. */
async function openMaps(page) {
  const tabs = await page.locator('.tabs-container .tab', { hasText: 'Session Map:' }).count();
  let pages = 0;
  for (const frame of page.frames()) if (await frame.$('#timeline').catch(() => null)) pages += 1;
  return { tabs, pages };
}

/** The editor's "Ln x, Col y" status bar item. */
async function cursorText(page) {
  const item = page.locator('[id="status.editor.selection"]');
  return ((await item.innerText().catch(() => '')) || '').replace(/\u00a0/g, ' ');
}

describe('VS Code (code-server 4.100.3): the session map of a Claude Code session', { timeout: 4 * TIMEOUT }, () => {
  const text = readFileSync(EXAMPLE, 'utf8');
  const units = cliUnits(text);
  let session;
  let page;
  let frame;

  before(async () => {
    session = await startEditor({
      name: 'sessionmap',
      files: { [NAME]: text },
      userSettings: { 'editor.fontSize': 13, 'turnlens.budget': 300 },
      viewport: { width: 1600, height: 1000 },
    });
    page = session.page;
    await openFile(page, NAME);
    await waitFor('inlay hints on the session', async () => ((await inlayHintTexts(page)).length >= units.length ? true : null), 60000);
  });

  after(async () => {
    if (page) await failureShot(page, 'sessionmap-last');
    await session?.stop();
  });

  it('draws one mark per message, with the classes and frozen flags of `turnlens check`', { timeout: TIMEOUT }, async () => {
    await runCommand(page, 'TurnLens: Show Session Map');
    frame = await mapFrame(page).catch(async (error) => {
      await failureShot(page, 'sessionmap-no-webview');
      throw error;
    });
    const drawn = await waitFor('the marks', async () => {
      const found = await marks(frame);
      return found.length === units.length ? found : null;
    }, 30000);
    assert.deepEqual(drawn.map((m) => m.cls), units.map((u) => u.cls));
    assert.deepEqual(drawn.map((m) => m.frozen), units.map((u) => u.frozen));
    assert.deepEqual(drawn.map((m) => m.role), units.map((u) => u.role ?? 'text'));
    // the page follows the editor's dark theme, through VS Code's CSS variables
    const { dark, themed } = await frame.evaluate(() => {
      const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/\d+/g).map(Number);
      const editorBg = getComputedStyle(document.documentElement).getPropertyValue('--vscode-editor-background').trim();
      return { dark: 0.2126 * r + 0.7152 * g + 0.0722 * b < 80, themed: editorBg !== '' && document.body.classList.contains('vscode-dark') };
    });
    assert.ok(themed, 'the webview has the theme variables and the dark theme class');
    assert.ok(dark, 'the page background is dark in a dark theme');
  });

  it('clicking a mark selects that message in the editor', { timeout: TIMEOUT }, async () => {
    const target = units.length - 1; // the last user prompt
    await frame.locator(`#timeline .mark[data-i="${target}"]`).click();
    const expected = `Ln ${units[target].line}, Col ${units[target].column}`;
    const cursor = await waitFor(`the cursor at ${expected}`, async () => {
      const now = await cursorText(page);
      return now.startsWith(expected) ? now : null;
    }, 20000).catch(async (error) => {
      await failureShot(page, 'sessionmap-no-reveal');
      throw new Error(`${error.message} (status bar: ${await cursorText(page)})`);
    });
    assert.match(cursor, /selected/, 'the whole message is selected');
    await sleep(300);
    const png = await page.screenshot();
    saveArtifact('session-map-vscode.png', png);
    if (process.env.TURNLENS_E2E_SCREENSHOT !== '0') {
      mkdirSync(join(REPO, 'docs', 'img'), { recursive: true });
      writeFileSync(join(REPO, 'docs', 'img', 'session-map-vscode.png'), png);
    }
  });

  it('an edit that changes a message’s class redraws its mark', { timeout: TIMEOUT }, async () => {
    const target = units.length - 1;
    const { line, column } = units[target];
    const lines = text.split('\n');
    lines[line - 1] = lines[line - 1].slice(0, column - 1) + EDIT + lines[line - 1].slice(column - 1);
    const edited = cliUnits(lines.join('\n'));
    assert.notEqual(edited[target].cls, units[target].cls, 'the edit is one that changes the class');
    // the selection from the click covers the message: the left arrow puts the cursor at its start
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type(EDIT, { delay: 20 });
    const redrawn = await waitFor(`mark ${target} to become ${edited[target].cls}`, async () => {
      const found = await marks(frame);
      return found[target]?.cls === edited[target].cls ? found : null;
    }, 30000).catch(async (error) => {
      await failureShot(page, 'sessionmap-no-update');
      throw error;
    });
    assert.deepEqual(redrawn.map((m) => m.cls), edited.map((u) => u.cls));
    assert.deepEqual(redrawn.map((m) => m.frozen), edited.map((u) => u.frozen));
  });

  it('keeps one map per document, and closes it with the document', { timeout: TIMEOUT }, async () => {
    await editor(page).click({ position: { x: 200, y: 200 } });
    await runCommand(page, 'TurnLens: Show Session Map');
    await sleep(1500);
    assert.deepEqual(await openMaps(page), { tabs: 1, pages: 1 });
    await runCommand(page, 'File: Revert File');
    await sleep(500);
    await editor(page).click({ position: { x: 200, y: 200 } });
    await runCommand(page, 'View: Close Editor');
    await waitFor('the session map to close with its document', async () => {
      const open = await openMaps(page);
      const documentTabs = await page.locator('.tabs-container .tab', { hasText: NAME }).count();
      return open.tabs === 0 && open.pages === 0 && documentTabs === 0 ? open : null;
    }, 30000).catch(async (error) => {
      await failureShot(page, 'sessionmap-not-closed');
      throw error;
    });
  });
});
