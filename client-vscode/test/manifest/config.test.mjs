// package.json's contributes.configuration equals what scripts/gen-config.mjs makes from the live
// `turnlens schema` (so the two never drift), and the generator itself behaves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { differences, flatten, generate, loadSchema, pythonCommand, readPackage } from '../../scripts/gen-config.mjs';

describe('contributes.configuration', () => {
  const schema = loadSchema();
  const generated = generate(schema);
  const current = readPackage().contributes.configuration;

  it(`equals the generator's output from \`${pythonCommand()} -m turnlens schema\``, () => {
    assert.deepEqual(differences(current, generated), [], 'run `npm run gen-config`');
    assert.deepEqual(current, generated);
  });

  it('has the settings of docs/architecture.md, each with a markdown description', () => {
    const keys = Object.keys(current.properties);
    for (const key of [
      'enable', 'analyze', 'debounceMs', 'exclude', 'maxDocumentSize', 'turnSeparator', 'rules.pack', 'rules.file',
      'budget', 'diagnostics.enable', 'diagnostics.severity', 'codeLens.enable', 'inlayHints.enable', 'hover.enable',
      'codeActions.enable', 'status.enable', 'router.enable', 'router.backend', 'router.endpoint', 'router.model',
      'router.apiKeyEnv', 'router.timeoutMs', 'router.failureLimit', 'router.cooldownMinutes', 'router.fallback',
      'router.minLength', 'router.phases', 'router.labels', 'router.keywords', 'server.command', 'server.python',
      'trace.server', 'documentSelector',
    ]) {
      assert.ok(keys.includes(`turnlens.${key}`), `turnlens.${key}`);
    }
    for (const [key, setting] of Object.entries(current.properties)) {
      assert.ok(typeof setting.markdownDescription === 'string' && setting.markdownDescription.length > 10, key);
      assert.ok('default' in setting, key);
    }
  });

  it('maps x-scope: back-end and launch settings are machine-scoped', () => {
    for (const key of ['router.backend', 'router.endpoint', 'router.model', 'router.apiKeyEnv', 'server.command', 'server.python']) {
      assert.equal(current.properties[`turnlens.${key}`].scope, 'machine', key);
    }
  });
});

describe('gen-config', () => {
  const schema = {
    type: 'object',
    $defs: { Level: { type: 'string', enum: ['a', 'b'] } },
    properties: {
      enable: { type: 'boolean', default: true, markdownDescription: 'On.', 'x-scope': 'resource' },
      group: {
        type: 'object',
        properties: {
          level: { $ref: '#/$defs/Level', default: 'a', markdownDescription: 'Level.', 'x-scope': 'window' },
          map: {
            type: 'object',
            default: { x: 1 },
            additionalProperties: { type: 'integer', 'x-note': 'dropped' },
            markdownDescription: 'A map is a leaf: it has a default.',
          },
          cmd: { type: 'array', items: { type: 'string' }, default: [], minItems: 0, markdownDescription: 'Cmd.', 'x-scope': 'machine', 'x-client': true },
        },
      },
    },
  };

  it('flattens groups into dotted keys, in order, and keeps object-valued settings whole', () => {
    assert.deepEqual(flatten(schema).map(([key]) => key), ['enable', 'group.level', 'group.map', 'group.cmd']);
  });

  it('carries the VS Code fields, resolves $ref, maps x-scope, drops x- keys', () => {
    const out = generate(schema);
    assert.equal(out.title, 'TurnLens');
    assert.deepEqual(out.properties['turnlens.group.level'], {
      type: 'string', default: 'a', enum: ['a', 'b'], markdownDescription: 'Level.', scope: 'window', order: 1,
    });
    assert.deepEqual(out.properties['turnlens.group.map'].additionalProperties, { type: 'integer' });
    assert.equal(out.properties['turnlens.group.cmd'].scope, 'machine');
    assert.deepEqual(out.properties['turnlens.group.cmd'].items, { type: 'string' });
    assert.equal(out.properties['turnlens.enable'].scope, 'resource');
  });

  it('refuses a setting without a description or with an unknown scope', () => {
    assert.throws(() => generate({ type: 'object', properties: { x: { type: 'string', default: '' } } }), /x: no markdownDescription/);
    assert.throws(
      () => generate({ type: 'object', properties: { x: { type: 'string', default: '', markdownDescription: 'X.', 'x-scope': 'galaxy' } } }),
      /unknown x-scope/,
    );
  });

  it('reports which keys differ', () => {
    const out = generate(schema);
    const stale = JSON.parse(JSON.stringify(out));
    delete stale.properties['turnlens.enable'];
    stale.properties['turnlens.group.level'].default = 'b';
    stale.properties['turnlens.old'] = {};
    assert.deepEqual(differences(stale, out).sort(), ['+ turnlens.enable', '- turnlens.old', '~ turnlens.group.level']);
    assert.deepEqual(differences(out, out), []);
  });
});
