// Every contributed command is registered by the extension's activate(), and the manifest's
// commands, menus and activation are consistent. Runs the real bundle (dist/extension.js) against
// a fake `vscode` module: no VS Code download needed.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const require = createRequire(import.meta.url);
const fake = require('./fake-vscode.cjs');
const SERVER_COMMANDS = ['turnlens.classify', 'turnlens.plan', 'turnlens.reload', 'turnlens.sessionMap'];

function loadExtension() {
  const originalLoad = Module._load;
  Module._load = function load(request, parent, isMain) {
    if (request === 'vscode') return fake;
    return originalLoad.call(this, request, parent, isMain);
  };
  try {
    return require(join(root, 'dist', 'extension.js'));
  } finally {
    Module._load = originalLoad;
  }
}

describe('contributed commands', () => {
  const contributed = pkg.contributes.commands.map((c) => c.command);
  const subscriptions = [];

  before(async () => {
    const extension = loadExtension();
    const globalStorageUri = fake.Uri.file(mkdtempSync(join(tmpdir(), 'turnlens-manifest-')));
    extension.activate({ subscriptions, extensionUri: fake.Uri.file(root), extensionPath: root, globalStorageUri });
    // let the background start (import check of a missing interpreter) settle
    for (let i = 0; i < 100 && !fake.recorded.messages.some(([kind]) => kind === 'error'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('every contributed command is registered by activate()', () => {
    const registered = [...fake.recorded.commands.keys()];
    for (const id of contributed) assert.ok(registered.includes(id), `${id} is contributed but not registered`);
  });

  it('every registered command is contributed (with a title in the TurnLens category)', () => {
    for (const id of fake.recorded.commands.keys()) {
      const entry = pkg.contributes.commands.find((c) => c.command === id);
      assert.ok(entry, `${id} is registered but not in package.json`);
      assert.equal(entry.category, 'TurnLens');
      assert.ok(entry.title.length > 0);
    }
    assert.equal(contributed.length, 11);
  });

  it("no palette command takes an id the language client registers for the server's commands", () => {
    for (const id of SERVER_COMMANDS) assert.ok(!contributed.includes(id), id);
  });

  it('menus only name contributed commands; Classify Selection is in the editor context menu', () => {
    for (const [menu, entries] of Object.entries(pkg.contributes.menus)) {
      for (const entry of entries) assert.ok(contributed.includes(entry.command), `${menu}: ${entry.command}`);
    }
    const context = pkg.contributes.menus['editor/context'].find((e) => e.command === 'turnlens.classifySelection');
    assert.ok(context && /editorHasSelection/.test(context.when));
    const title = pkg.contributes.menus['editor/title'].find((e) => e.command === 'turnlens.showSessionMap');
    assert.ok(title && /turnlens\.active/.test(title.when), 'Show Session Map is on the title bar of session files');
    assert.ok(pkg.contributes.commands.find((c) => c.command === 'turnlens.showSessionMap').icon);
  });

  it('activation stops with a clear message when turnlens is not importable', () => {
    const errors = fake.recorded.messages.filter(([kind]) => kind === 'error').map(([, text]) => text);
    assert.ok(
      errors.some((text) => text.includes('/nonexistent/turnlens-test-python') && text.includes('was not found')),
      JSON.stringify(errors),
    );
  });

  it('the status bar item exists and the toggles write the settings', async () => {
    assert.equal(fake.recorded.statusBarItems.length, 1);
    await fake.recorded.commands.get('turnlens.toggleCodeLens')();
    assert.equal(fake.settings['codeLens.enable'], false);
    await fake.recorded.commands.get('turnlens.toggleCodeLens')();
    assert.equal(fake.settings['codeLens.enable'], true);
    assert.ok(fake.recorded.messages.some(([kind, text]) => kind === 'status' && /code lenses on/.test(text)));
  });

  it('disposing the subscriptions unregisters the commands', () => {
    for (const subscription of subscriptions) subscription.dispose();
    assert.equal(fake.recorded.commands.size, 0);
  });
});

describe('manifest', () => {
  it('engines.vscode accepts 1.100 (code-server 4.100.3) and @types/vscode is not newer', () => {
    assert.match(pkg.engines.vscode, /^\^1\.(\d+)\.\d+$/);
    const min = Number(/^\^1\.(\d+)/.exec(pkg.engines.vscode)[1]);
    assert.ok(min <= 100, pkg.engines.vscode);
    const types = Number(/^\^?1\.(\d+)/.exec(pkg.devDependencies['@types/vscode'])[1]);
    assert.ok(types <= min, `@types/vscode ${pkg.devDependencies['@types/vscode']} is newer than ${pkg.engines.vscode}`);
  });

  it('untrusted workspaces: limited, with the back-end and launch settings restricted', () => {
    const trust = pkg.capabilities.untrustedWorkspaces;
    assert.equal(trust.supported, 'limited');
    assert.deepEqual([...trust.restrictedConfigurations].sort(), [
      'turnlens.router.apiKeyEnv',
      'turnlens.router.backend',
      'turnlens.router.endpoint',
      'turnlens.router.model',
      'turnlens.server.command',
      'turnlens.server.python',
    ]);
    for (const key of trust.restrictedConfigurations) {
      assert.ok(key in pkg.contributes.configuration.properties, `${key} is not a contributed setting`);
    }
  });

  it('activates on the default document kinds', () => {
    for (const event of ['onLanguage:markdown', 'onLanguage:plaintext', 'workspaceContains:**/*.prompt.md']) {
      assert.ok(pkg.activationEvents.includes(event), event);
    }
    assert.equal(pkg.main, './dist/extension.js');
  });
});
