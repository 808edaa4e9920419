import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BACKEND_KEYS,
  Inspected,
  RESTRICTED_KEYS,
  USER_ONLY_KEYS,
  getPath,
  initializationOptions,
  launchValue,
  sanitizeConfigurationItem,
  sanitizeSettings,
  setPath,
  userBackendSettings,
} from '../../src/pure/trust';

/** A fake `inspect`: defaults, user (global) values and the effective (workspace-merged) values. */
function inspector(user: Record<string, unknown>, effective: Record<string, unknown> = {}) {
  const defaults: Record<string, unknown> = {
    'router.backend': 'rules',
    'router.endpoint': '',
    'router.model': '',
    'router.apiKeyEnv': '',
    'server.command': [],
    'server.python': '',
  };
  return (key: string): Inspected | undefined =>
    key in defaults
      ? { defaultValue: defaults[key], globalValue: user[key], value: key in effective ? effective[key] : (user[key] ?? defaults[key]) }
      : undefined;
}

const workspaceSection = {
  enable: true,
  codeLens: { enable: true },
  router: {
    enable: true,
    backend: 'openai',
    endpoint: 'http://evil.example/v1',
    model: 'big',
    apiKeyEnv: 'AWS_SECRET_ACCESS_KEY',
    timeoutMs: 3000,
  },
};

describe('sanitizeSettings', () => {
  it('takes the back-end settings from user settings only (trusted workspace)', () => {
    const user = { 'router.backend': 'openai', 'router.endpoint': 'http://localhost:11434/v1', 'router.apiKeyEnv': 'MY_KEY' };
    const out = sanitizeSettings(workspaceSection, inspector(user), true);
    assert.deepEqual(out.router, {
      enable: true,
      backend: 'openai',
      endpoint: 'http://localhost:11434/v1',
      model: '',
      apiKeyEnv: 'MY_KEY',
      timeoutMs: 3000,
    });
    assert.deepEqual(out.codeLens, { enable: true }, 'other settings pass through');
  });

  it('forces the rules back end in an untrusted workspace, whatever the user set', () => {
    const user = { 'router.backend': 'anthropic', 'router.model': 'small', 'router.apiKeyEnv': 'ANTHROPIC_API_KEY' };
    const out = sanitizeSettings(workspaceSection, inspector(user), false);
    assert.equal(getPath(out, 'router.backend'), 'rules');
    assert.equal(getPath(out, 'router.endpoint'), '', 'the workspace endpoint is dropped for the default');
    assert.equal(getPath(out, 'router.model'), 'small');
    assert.equal(getPath(out, 'router.apiKeyEnv'), 'ANTHROPIC_API_KEY');
  });

  it('does not change its input and copes with a missing section', () => {
    const input = JSON.parse(JSON.stringify(workspaceSection)) as typeof workspaceSection;
    sanitizeSettings(input, inspector({}), false);
    assert.deepEqual(input, workspaceSection);
    assert.deepEqual(sanitizeSettings(undefined, inspector({}), false).router, {
      backend: 'rules',
      endpoint: '',
      model: '',
      apiKeyEnv: '',
    });
  });
});

describe('initializationOptions', () => {
  it('carries the settings, the user back-end settings and the trust state', () => {
    const user = { 'router.backend': 'openai', 'router.endpoint': 'http://localhost:8080/v1' };
    const trusted = initializationOptions(workspaceSection, inspector(user), true);
    assert.equal(trusted.workspaceTrusted, true);
    assert.equal(trusted.commandResults, 'json'); // the client shows command results itself
    assert.deepEqual(trusted.userSettings, {
      router: { backend: 'openai', endpoint: 'http://localhost:8080/v1', model: '', apiKeyEnv: '' },
    });
    assert.equal(getPath(trusted, 'settings.router.endpoint'), 'http://localhost:8080/v1');
    assert.equal(getPath(trusted, 'settings.codeLens.enable'), true);

    const untrusted = initializationOptions(workspaceSection, inspector(user), false);
    assert.equal(untrusted.workspaceTrusted, false);
    assert.equal(getPath(untrusted, 'userSettings.router.backend'), 'rules');
    assert.equal(getPath(untrusted, 'settings.router.backend'), 'rules');
    assert.equal(getPath(untrusted, 'userSettings.router.endpoint'), 'http://localhost:8080/v1');
  });

  it('userBackendSettings lists exactly the back-end keys', () => {
    const out = userBackendSettings(inspector({}), true);
    assert.deepEqual(Object.keys(out.router as object).sort(), ['apiKeyEnv', 'backend', 'endpoint', 'model']);
    assert.equal(BACKEND_KEYS.length, 4);
    assert.deepEqual([...RESTRICTED_KEYS].sort(), [...BACKEND_KEYS, 'server.command', 'server.python'].sort());
  });
});

describe('launchValue', () => {
  it('honours workspace values only when trusted', () => {
    const inspect = inspector({ 'server.python': '/user/python' }, { 'server.python': '/workspace/python' });
    assert.equal(launchValue(inspect('server.python'), true), '/workspace/python');
    assert.equal(launchValue(inspect('server.python'), false), '/user/python');
    const none = inspector({}, { 'server.command': ['/workspace/evil'] });
    assert.deepEqual(launchValue(none('server.command'), false), []);
    assert.equal(launchValue(undefined, false), undefined);
  });
});

describe('sanitizeConfigurationItem', () => {
  const inspect = inspector({ 'router.endpoint': 'http://user/v1' });
  it('handles the whole section, a part of it, one key, and other sections', () => {
    assert.equal(getPath(sanitizeConfigurationItem('turnlens', workspaceSection, inspect, false), 'router.backend'), 'rules');
    const router = sanitizeConfigurationItem('turnlens.router', workspaceSection.router, inspect, false) as Record<string, unknown>;
    assert.equal(router.backend, 'rules');
    assert.equal(router.endpoint, 'http://user/v1');
    assert.equal(router.timeoutMs, 3000);
    assert.equal(sanitizeConfigurationItem('turnlens.router.endpoint', 'http://ws/v1', inspect, true), 'http://user/v1');
    assert.deepEqual(sanitizeConfigurationItem('turnlens.codeLens', { enable: false }, inspect, false), { enable: false });
    assert.deepEqual(sanitizeConfigurationItem('editor', { tabSize: 2 }, inspect, false), { tabSize: 2 });
    assert.equal(sanitizeConfigurationItem(null, 5, inspect, false), 5);
  });
});

describe('setPath / getPath', () => {
  it('creates and deletes nested keys', () => {
    const obj: Record<string, unknown> = {};
    setPath(obj, 'a.b.c', 1);
    assert.deepEqual(obj, { a: { b: { c: 1 } } });
    setPath(obj, 'a.b.c', undefined);
    assert.deepEqual(obj, { a: { b: {} } });
    setPath(obj, 'x.y', undefined);
    assert.deepEqual(obj, { a: { b: {} } });
    assert.equal(getPath(obj, 'a.b.c'), undefined);
    assert.equal(getPath(5, 'a'), undefined);
  });
});

describe('model files (turnlens.models)', () => {
  it('come from user settings only, trusted or not', () => {
    const inspect = (key: string): Inspected | undefined =>
      key === 'models' ? { defaultValue: [], globalValue: ['/home/me/m.tlm'], value: ['./evil.tlm'] } : undefined;
    const section = { enable: true, models: ['./evil.tlm'] };
    assert.deepEqual(sanitizeSettings(section, inspect, true).models, ['/home/me/m.tlm']);
    assert.deepEqual(initializationOptions(section, inspect, false).userSettings.models, ['/home/me/m.tlm']);
    assert.deepEqual(sanitizeConfigurationItem('turnlens.models', ['./evil.tlm'], inspect, true), ['/home/me/m.tlm']);
    assert.ok(USER_ONLY_KEYS.includes('models'));
  });
});
