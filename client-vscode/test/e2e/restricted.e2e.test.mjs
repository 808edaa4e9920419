// End-to-end: the .vsix in code-server with workspace trust on and the folder untrusted
// (Restricted Mode): labels still appear, the model back ends stay off, and the folder's own
// settings can neither pick a back end nor change the server command. Needs `npm run package`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { outputLog, startEditor, waitFor } from './harness.mjs';
import { LENS_RE, codeLensTexts, failureShot, inlayHintTexts, openFile, statusItem } from './workbench.mjs';

const TIMEOUT = 120000;

describe('VS Code (code-server 4.100.3), Restricted Mode (untrusted folder)', { timeout: 4 * TIMEOUT }, () => {
  let session;
  let page;

  before(async () => {
    session = await startEditor({
      name: 'restricted',
      trusted: false,
      // the user asked for a model back end; the folder tries to pick one and to run a program
      userSettings: {
        'turnlens.trace.server': 'messages',
        'turnlens.router.backend': 'openai',
        'turnlens.router.endpoint': 'http://127.0.0.1:9/v1',
        'turnlens.router.model': 'user-model',
      },
      files: { 'data.json': '{"not": "a prompt"}\n' },
      workspaceSettings: {
        'turnlens.router.backend': 'anthropic',
        'turnlens.router.endpoint': 'http://127.0.0.1:9/evil',
        'turnlens.server.command': ['/bin/false'],
      },
    });
    page = session.page;
  });

  after(async () => {
    if (page) await failureShot(page, 'restricted-last');
    await session?.stop();
  });

  it('opens in Restricted Mode', { timeout: TIMEOUT }, async () => {
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 30000 });
  });

  it('still labels the document', { timeout: TIMEOUT }, async () => {
    await openFile(page, 'session.md');
    await waitFor('inlay hints', async () => (await inlayHintTexts(page)).length > 0, 60000);
    await waitFor('code lenses', async () => (await codeLensTexts(page)).some((t) => LENS_RE.test(t)), 60000);
    await waitFor('status bar', async () => /\w/.test(await statusItem(page).innerText().catch(() => '')), 30000);
  });

  it('keeps the model back ends off and ignores the folder’s server command', { timeout: TIMEOUT }, async () => {
    const log = await waitFor('the output log on disk', async () => {
      const text = outputLog(session.dirs);
      return /router back end: /.test(text) ? text : null;
    }, 30000);
    assert.match(log, /Restricted Mode: the router back end is forced to "rules"/);
    assert.match(log, /router back end: rules/);
    assert.doesNotMatch(log, /router back end: (openai|anthropic)/);
    assert.doesNotMatch(log, /\/bin\/false/);
    assert.match(log, /-m turnlens serve \(from server\.command\)/);
  });

  it('traces the protocol when turnlens.trace.server is on', { timeout: TIMEOUT }, async () => {
    const log = outputLog(session.dirs);
    assert.match(log, /\[trace\] .*Sending request 'initialize/);
    assert.match(log, /\[trace\] .*Received notification 'turnlens\/status'/);
  });

  it('hides the status bar item for a document TurnLens does not analyse', { timeout: TIMEOUT }, async () => {
    await openFile(page, 'data.json');
    await waitFor('the status bar item to hide', async () => !(await statusItem(page).isVisible()), 20000);
    await openFile(page, 'session.md');
    await waitFor('the status bar item to come back', () => statusItem(page).isVisible(), 20000);
  });
});
