// End-to-end: the built .vsix in a real VS Code (code-server 4.100.3 = VS Code 1.100.3) driven by
// headless Chromium, talking to `python -m turnlens serve`, in a trusted workspace holding the
// example transcript. Needs `npm run package` first.
//   TURNLENS_PYTHON   the interpreter with turnlens installed (default python3)
//   TURNLENS_E2E_KEEP keep the temporary folders
//   TURNLENS_E2E_SCREENSHOT=0  do not rewrite docs/img/vscode.png
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO, exampleSession, outputLog, saveArtifact, sleep, startEditor, waitFor } from './harness.mjs';
import {
  LENS_RE,
  classifyText,
  codeLensTexts,
  editor,
  exampleUnits,
  failureShot,
  inlayHintTexts,
  openFile,
  quickPick,
  runCommand,
  selectLineWith,
  statusItem,
  uniqueWord,
} from './workbench.mjs';

const TIMEOUT = 120000;

describe('VS Code (code-server 4.100.3), trusted workspace', { timeout: 6 * TIMEOUT }, () => {
  let session;
  let page;
  const units = exampleUnits();
  const classes = units.map((unit) => unit.cls);
  const text = readFileSync(exampleSession(), 'utf8');
  const lines = text.split('\n');
  // the turn to hover and select: the decision, else the last one; and another class's lens to click
  const target = units.find((unit) => unit.cls === 'decision') ?? units[units.length - 1];
  const targetLine = lines[target.line - 1];
  const targetWord = uniqueWord(targetLine, text);
  const lensClass = units.find((unit) => unit.cls !== target.cls)?.cls ?? target.cls;
  // the hover for the screenshot: the last word of the longest first line, so the hover opens over
  // the empty right-hand side of the editor
  const hovered = [...units].sort((a, b) => lines[b.line - 1].length - lines[a.line - 1].length)[0];
  const hoverWord = lines[hovered.line - 1].trim().split(/\s+/).pop();

  before(async () => {
    session = await startEditor({
      name: 'trusted',
      workspaceSettings: { 'turnlens.budget': 2000 },
      // hovers open below the line, so the screenshot's hover covers as little as possible
      userSettings: { 'editor.hover.above': false, 'editor.fontSize': 13 },
      // tall enough for every turn of the example, with its lens, to be on screen at once
      viewport: { width: 1440, height: 1240 },
    });
    page = session.page;
    await openFile(page, 'session.md');
  });

  after(async () => {
    if (page) await failureShot(page, 'trusted-last');
    await session?.stop();
  });

  it('shows an inlay hint at the end of each turn’s first line', { timeout: TIMEOUT }, async () => {
    const hints = await waitFor('inlay hints', async () => {
      const found = await inlayHintTexts(page);
      return found.length >= classes.length ? found : null;
    }, 60000).catch(async (error) => {
      await failureShot(page, 'no-inlay-hints');
      throw error;
    });
    // an unsure answer of the model is marked `context?`
    assert.deepEqual(hints.map((hint) => hint.split(' ')[0].replace(/\?$/, '')), classes);
  });

  it('shows code lenses: class · ratio · frozen and the route per turn, and the session plan', { timeout: TIMEOUT }, async () => {
    const lenses = await waitFor('code lenses', async () => {
      const found = await codeLensTexts(page);
      return found.some((text) => LENS_RE.test(text)) ? found : null;
    }, 60000).catch(async (error) => {
      await failureShot(page, 'no-code-lenses');
      throw error;
    });
    const classLenses = lenses.filter((text) => LENS_RE.test(text));
    assert.deepEqual(classLenses.map((text) => text.split(' ')[0].replace(/\?$/, '')), classes, lenses.join('\n'));
    assert.ok(lenses.some((text) => /effort|no route/.test(text)), 'a route lens');
    assert.ok(lenses.some((text) => /^Session plan: (FITS|OVERFLOW)/.test(text)), 'the plan lens (budget 2000)');
  });

  it('shows the last turn’s class in the status bar', { timeout: TIMEOUT }, async () => {
    const item = statusItem(page);
    const last = classes[classes.length - 1];
    await waitFor('status bar', async () => (await item.innerText().catch(() => '')).includes(last), 30000);
    assert.equal((await item.getAttribute('aria-label'))?.startsWith(`TurnLens: ${last}`), true);
  });

  it('explains a turn on hover, and takes the screenshot for the docs', { timeout: TIMEOUT }, async () => {
    await runCommand(page, 'View: Close Primary Side Bar');
    await sleep(500);
    const word = await page.evaluate((wanted) => {
      // the on-screen box of the last occurrence of `wanted` in the editor's lines
      const lines = [...document.querySelectorAll('.editor-instance .monaco-editor .view-line')];
      for (const line of lines.reverse()) {
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.textContent.replace(/\u00a0/g, ' ').lastIndexOf(wanted);
          if (at < 0) continue;
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + wanted.length);
          const box = range.getBoundingClientRect();
          return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
        }
      }
      return null;
    }, hoverWord);
    assert.ok(word, `"${hoverWord}" is on screen`);
    await page.mouse.move(word.x, word.y);
    const hover = page.locator('.monaco-hover:visible', { hasText: 'TurnLens' }).first();
    await hover.waitFor({ timeout: 20000 });
    assert.match(await hover.innerText(), new RegExp(hovered.cls));
    await sleep(300);
    const png = await page.screenshot();
    saveArtifact('vscode.png', png);
    if (process.env.TURNLENS_E2E_SCREENSHOT !== '0') {
      mkdirSync(join(REPO, 'docs', 'img'), { recursive: true });
      writeFileSync(join(REPO, 'docs', 'img', 'vscode.png'), png);
    }
    await page.mouse.move(5, 400);
    await page.keyboard.press('Escape');
  });

  it('Classify Selection shows class, ratio, frozen, verdict, route and the fired rules', { timeout: TIMEOUT }, async () => {
    const expected = classifyText(targetLine);
    await selectLineWith(page, targetWord);
    // it is in the editor context menu while text is selected
    await editor(page).locator('.view-line', { hasText: targetWord }).first().click({ button: 'right', position: { x: 40, y: 8 } });
    const menuItem = page.locator('.monaco-menu .action-label', { hasText: 'Classify Selection' }).first();
    await menuItem.waitFor({ timeout: 10000 });
    await sleep(300); // let the menu settle: an early click can be swallowed
    await menuItem.hover();
    await sleep(200);
    await page.keyboard.press('Enter');
    let seen = null;
    const pick = await waitFor('classification quick pick', async () => {
      seen = await quickPick(page);
      return seen?.title.startsWith(`TurnLens: ${expected.class}`) ? seen : null;
    }, 20000).catch(async (error) => {
      await failureShot(page, 'classify-selection-failed');
      throw new Error(`${error.message}; last quick pick: ${JSON.stringify(seen)}`);
    });
    saveArtifact('classify-selection.png', await page.screenshot());
    assert.ok(
      pick.title.startsWith(`TurnLens: ${expected.class} · ≤${expected.max_ratio}:1 · `),
      `${pick.title} for ${JSON.stringify(targetLine)}`,
    );
    assert.ok(pick.title.includes(` · ${expected.verdict} · `), pick.title);
    assert.match(pick.title, / · (effort \w+|no route) ?/);
    const rows = pick.rows.join('\n');
    for (const want of [/task class/, /maximum compression ratio/, new RegExp(`frozen: ${expected.frozen}`), /compression verdict/, /Rules that fired/, /size/]) {
      assert.match(rows, want);
    }
    assert.match(rows, new RegExp(`${expected.class}\\.\\S+`), 'a fired rule of the class');
    await page.keyboard.press('Escape');
  });

  it('clicking a unit lens shows its classification (lens command intercepted)', { timeout: TIMEOUT }, async () => {
    const lens = editor(page).locator('.codelens-decoration a', { hasText: new RegExp(`^${lensClass} · `) }).first();
    await lens.click({ timeout: 20000 }).catch(async (error) => {
      await failureShot(page, 'lens-click-failed');
      throw error;
    });
    let seen = null;
    const pick = await waitFor('lens quick pick', async () => {
      seen = await quickPick(page);
      return seen?.title.startsWith(`TurnLens: ${lensClass}`) ? seen : null;
    }, 20000).catch(async (error) => {
      await failureShot(page, 'lens-pick-failed');
      throw new Error(`${error.message}; last quick pick: ${JSON.stringify(seen)}`);
    });
    assert.match(pick.rows.join('\n'), /task class/);
    await page.keyboard.press('Escape');
  });

  it('Toggle Code Lenses writes the workspace setting and the lenses go and come back', { timeout: TIMEOUT }, async () => {
    const settingsFile = join(session.dirs.workspace, '.vscode', 'settings.json');
    // VS Code may be half-way through writing the file: an unreadable file is "not yet"
    const setting = () => {
      try {
        return JSON.parse(readFileSync(settingsFile, 'utf8'))['turnlens.codeLens.enable'];
      } catch {
        return undefined;
      }
    };
    assert.ok((await codeLensTexts(page)).length > 0, 'lenses are there to begin with');
    await runCommand(page, 'TurnLens: Toggle Code Lenses');
    await waitFor('the workspace setting to be false', async () => setting() === false, 20000);
    await waitFor('code lenses to disappear', async () => (await codeLensTexts(page)).length === 0, 20000);
    assert.ok((await inlayHintTexts(page)).length > 0, 'inlay hints stay');

    await runCommand(page, 'TurnLens: Toggle Code Lenses');
    await waitFor('the workspace setting to be true', async () => setting() === true, 20000);
    await waitFor('code lenses to come back', async () => (await codeLensTexts(page)).some((t) => LENS_RE.test(t)), 20000);

    // and an edit of the settings file itself (as a person would do it) turns them off too
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
    writeFileSync(settingsFile, JSON.stringify({ ...settings, 'turnlens.codeLens.enable': false }, null, 2));
    await waitFor('code lenses to disappear after a settings.json edit', async () => (await codeLensTexts(page)).length === 0, 20000);
    writeFileSync(settingsFile, JSON.stringify({ ...settings, 'turnlens.codeLens.enable': true }, null, 2));
    await waitFor('code lenses back after a settings.json edit', async () => (await codeLensTexts(page)).some((t) => LENS_RE.test(t)), 20000);
  });

  it('Toggle Inlay Hints removes the hints', { timeout: TIMEOUT }, async () => {
    await runCommand(page, 'TurnLens: Toggle Inlay Hints');
    await waitFor('inlay hints to disappear', async () => (await inlayHintTexts(page)).length === 0, 20000);
    await runCommand(page, 'TurnLens: Toggle Inlay Hints');
    await waitFor('inlay hints to come back', async () => (await inlayHintTexts(page)).length > 0, 20000);
  });

  it('Show Session Plan and the plan lens show the plan against the budget', { timeout: TIMEOUT }, async () => {
    const planTitle = /^TurnLens session plan: (FITS|OVERFLOW) — \d+ of 2000 tokens/;
    await runCommand(page, 'TurnLens: Show Session Plan');
    let pick = await waitFor('the plan quick pick', async () => {
      const found = await quickPick(page);
      return found && planTitle.test(found.title) ? found : null;
    }, 20000);
    assert.equal(pick.rows.filter((row) => /^Turn \d+ · /.test(row)).length, classes.length, pick.rows.join('\n'));
    await page.keyboard.press('Escape');
    await editor(page).locator('.codelens-decoration a', { hasText: /^Session plan: / }).first().click();
    pick = await waitFor('the plan quick pick from the lens', async () => {
      const found = await quickPick(page);
      return found && planTitle.test(found.title) ? found : null;
    }, 20000);
    await page.keyboard.press('Escape');
  });

  it('Toggle Router drops the efforts; Toggle Diagnostics removes the diagnostics', { timeout: TIMEOUT }, async () => {
    await runCommand(page, 'TurnLens: Toggle Router');
    await waitFor('inlay hints without an effort', async () => {
      const hints = await inlayHintTexts(page);
      return hints.length === classes.length && hints.every((hint) => hint.endsWith('· –'));
    }, 20000);
    await runCommand(page, 'TurnLens: Toggle Router');
    await waitFor('efforts back', async () => (await inlayHintTexts(page)).some((hint) => !hint.endsWith('· –')), 20000);

    const squiggles = () => editor(page).locator('.view-overlays [class*="squiggly-"]').count();
    await waitFor('diagnostics on screen', async () => (await squiggles()) > 0, 20000);
    await runCommand(page, 'TurnLens: Toggle Diagnostics');
    await waitFor('diagnostics to disappear', async () => (await squiggles()) === 0, 20000);
    await runCommand(page, 'TurnLens: Toggle Diagnostics');
    await waitFor('diagnostics to come back', async () => (await squiggles()) > 0, 20000);
  });

  it('Reload and Show Output work; the server runs the rules back end', { timeout: TIMEOUT }, async () => {
    await runCommand(page, 'TurnLens: Reload');
    await runCommand(page, 'TurnLens: Show Output');
    await waitFor('the TurnLens output channel in the panel', () =>
      page.evaluate(() => {
        const select = document.querySelector('.part.panel select.monaco-select-box');
        return select instanceof HTMLSelectElement && select.selectedOptions[0]?.textContent === 'TurnLens';
      }),
    20000);
    await waitFor('a reload message', async () =>
      (await page.locator('.statusbar-item', { hasText: 'settings and rules reloaded' }).count()) > 0,
    20000);
    const log = await waitFor('the output log on disk', async () => {
      const text = outputLog(session.dirs);
      return /router back end: rules/.test(text) ? text : null;
    }, 20000);
    assert.match(log, /Starting the TurnLens server: .* -m turnlens serve \(from server\.command\)/);
    assert.match(log, /Workspace trusted/);
  });
});
