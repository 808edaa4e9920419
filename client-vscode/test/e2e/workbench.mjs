// Workbench helpers for the end-to-end tests: finding TurnLens's lenses, hints, status bar item and
// quick picks in the VS Code DOM, and driving the palette and the editor.
import { execFileSync } from 'node:child_process';
import { exampleSession, saveArtifact, serverPython } from './harness.mjs';


const CLASS_WORDS = '(decision|spec|code|review|context|chitchat)';
// a class the model is unsure of is shown with a question mark (`context?`)
export const INLAY_RE = new RegExp(`^${CLASS_WORDS}\\?? ≤\\d+:1(?: · \\S+)?$`);
export const LENS_RE = new RegExp(`^${CLASS_WORDS}\\?? · ≤\\d+:1 · `);
const nbsp = (text) => text.replace(/\u00a0/g, ' ').trim();

export function editor(page) {
  return page.locator('.editor-instance .monaco-editor').first();
}

/** Opens a file of the workspace from the explorer. */
export async function openFile(page, name) {
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
  await row.waitFor({ timeout: 60000 });
  await row.click();
  await editor(page).locator('.view-lines').waitFor({ timeout: 30000 });
  await page.locator('.tabs-container .tab', { hasText: name }).first().waitFor({ timeout: 30000 });
}

/** Runs a command from the palette by its full title ("TurnLens: Toggle Code Lenses"). A busy
 * workbench sometimes leaves the palette's list empty after the filter is typed: the palette
 * is then opened again (three tries, each waiting longer). */
export async function runCommand(page, title) {
  const tries = 3;
  for (let attempt = 1; attempt <= tries; attempt += 1) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 10000 });
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    try {
      await row.waitFor({ timeout: 10000 * attempt });
    } catch (error) {
      if (attempt === tries) throw error;
      continue;
    }
    await page.keyboard.press('Enter');
    return;
  }
}

export async function codeLensTexts(page) {
  const texts = await editor(page).locator('.codelens-decoration a, .codelens-decoration span').allInnerTexts();
  return texts.map(nbsp).filter(Boolean);
}

export async function inlayHintTexts(page) {
  const texts = await editor(page).locator('.view-line span[class*="dyn-rule"]').allInnerTexts();
  return texts.map(nbsp).filter((text) => INLAY_RE.test(text));
}

export function statusItem(page) {
  return page.locator('[id="turnlens.turnlens.turnlens.status"]');
}

/** The visible quick pick (title and row labels), or null. */
export async function quickPick(page) {
  const widget = page.locator('.quick-input-widget');
  if (!(await widget.isVisible())) return null;
  const title = nbsp((await widget.locator('.quick-input-title').innerText().catch(() => '')) || '');
  const rows = (await widget.locator('.quick-input-list .monaco-list-row').allInnerTexts()).map(nbsp);
  return { title, rows };
}

/** Selects the whole editor line that contains `text` (first match on screen). */
export async function selectLineWith(page, text) {
  const line = editor(page).locator('.view-line', { hasText: text }).first();
  await line.click();
  await page.keyboard.press('Control+L'); // Expand Line Selection: the whole (logical) line
}

// ---- the example and what the CLI says about it ---------------------------------------------

/** Every unit of the example from the CLI (`turnlens check`): its first line (1-based) and class. */
export function exampleUnits() {
  const out = execFileSync(serverPython(), ['-m', 'turnlens', 'check', exampleSession()], { encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .map((line) => /:(\d+):\d+: (\w+)\?? /.exec(line)) // `context?`: the model is unsure
    .filter(Boolean)
    .map((match) => ({ line: Number(match[1]), cls: match[2] }));
}

/** What `turnlens classify` says about a text (the expected Classify Selection result). */
export function classifyText(text) {
  const out = execFileSync(serverPython(), ['-m', 'turnlens', 'classify', '--stdin', '--json'], { input: text, encoding: 'utf8' });
  return JSON.parse(out);
}

/** A word of `line` that occurs once in the whole text, to find that line on screen. */
export function uniqueWord(line, text) {
  const words = line.split(/\s+/).filter((word) => word.length >= 4).sort((a, b) => b.length - a.length);
  const word = words.find((w) => text.split(w).length === 2);
  if (!word) throw new Error(`no unique word in ${JSON.stringify(line)}`);
  return word;
}

export async function failureShot(page, name) {
  try {
    saveArtifact(`${name}.png`, await page.screenshot());
  } catch {
    // the page may be gone
  }
}
