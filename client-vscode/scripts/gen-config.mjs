#!/usr/bin/env node
// Generates package.json's `contributes.configuration` from the server's settings schema, so the
// two never drift (docs/architecture.md: the server's settings model is the one source of truth).
//
//   node scripts/gen-config.mjs --write   run `turnlens schema`, write package.json
//   node scripts/gen-config.mjs --check   exit 1 (with the differing keys) when package.json is stale
//   node scripts/gen-config.mjs --print   print the generated configuration
//   ... --schema FILE                     read the schema from FILE instead of running the server
//
// The interpreter is $TURNLENS_PYTHON, else `python3` (`python` on Windows).
// The nested JSON Schema of the `turnlens` object is flattened into dotted keys (`turnlens.router.backend`);
// an object with `properties` and no `default` is a group, anything else is a setting. `x-scope` becomes
// VS Code's `scope`; `x-client` settings (only the editor reads them) are included like the others.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PACKAGE_JSON = join(ROOT, 'package.json');
export const PREFIX = 'turnlens';

/** Keys of a setting's schema that VS Code understands and that we carry over. */
const CARRIED = [
  'type',
  'default',
  'enum',
  'enumDescriptions',
  'markdownEnumDescriptions',
  'markdownDescription',
  'description',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'patternErrorMessage',
  'format',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'additionalProperties',
  'required',
  'deprecationMessage',
  'markdownDeprecationMessage',
  'editPresentation',
  'tags',
];

const SCOPES = {
  machine: 'machine',
  window: 'window',
  resource: 'resource',
  application: 'application',
  'machine-overridable': 'machine-overridable',
  'language-overridable': 'language-overridable',
};

export function pythonCommand() {
  return process.env.TURNLENS_PYTHON || (process.platform === 'win32' ? 'python' : 'python3');
}

/** Runs `<python> -m turnlens schema` and parses its JSON. */
export function loadSchema(python = pythonCommand()) {
  let out;
  try {
    out = execFileSync(python, ['-m', 'turnlens', 'schema'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = error.stderr ? String(error.stderr).trim() : error.message;
    throw new Error(`\`${python} -m turnlens schema\` failed (is turnlens installed? set TURNLENS_PYTHON):\n${stderr}`);
  }
  return JSON.parse(out);
}

function resolveRef(node, root) {
  let current = node;
  for (let depth = 0; current && typeof current.$ref === 'string' && depth < 32; depth++) {
    if (!current.$ref.startsWith('#/')) throw new Error(`unsupported $ref ${current.$ref}`);
    let target = root;
    for (const part of current.$ref.slice(2).split('/')) target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (!target) throw new Error(`unresolved $ref ${current.$ref}`);
    const { $ref: _ref, ...rest } = current;
    current = { ...target, ...rest };
  }
  return current;
}

/** A deep copy without the TurnLens-specific `x-…` keys and with `$ref`s resolved. */
function clean(value, root) {
  if (Array.isArray(value)) return value.map((item) => clean(item, root));
  if (value === null || typeof value !== 'object') return value;
  const node = resolveRef(value, root);
  const out = {};
  for (const [key, child] of Object.entries(node)) {
    if (key.startsWith('x-') || key === '$schema' || key === '$defs' || key === 'title') continue;
    out[key] = clean(child, root);
  }
  return out;
}

function isGroup(node) {
  return node.type === 'object' && node.properties && typeof node.properties === 'object' && !('default' in node);
}

/** Flattens the schema into `{ "turnlens.a.b": schemaOfLeaf }`, in schema order. */
export function flatten(schema) {
  const leaves = [];
  const walk = (node, path) => {
    node = resolveRef(node, schema);
    if (path.length && !isGroup(node)) {
      leaves.push([path.join('.'), node]);
      return;
    }
    if (!node.properties) throw new Error(`the schema node ${path.join('.') || '(root)'} has no properties`);
    for (const [name, child] of Object.entries(node.properties)) walk(child, [...path, name]);
  };
  walk(schema, []);
  return leaves;
}

/** The `contributes.configuration` object for a schema. */
export function generate(schema) {
  const properties = {};
  const problems = [];
  flatten(schema).forEach(([key, node], index) => {
    const setting = {};
    for (const field of CARRIED) if (field in node) setting[field] = clean(node[field], schema);
    if (!setting.markdownDescription) problems.push(`${key}: no markdownDescription`);
    if (!('default' in setting)) problems.push(`${key}: no default`);
    const scope = node['x-scope'];
    if (scope !== undefined) {
      if (!(scope in SCOPES)) problems.push(`${key}: unknown x-scope ${JSON.stringify(scope)}`);
      else setting.scope = SCOPES[scope];
    }
    setting.order = index;
    properties[`${PREFIX}.${key}`] = setting;
  });
  if (problems.length) throw new Error(`the settings schema is not usable:\n  ${problems.join('\n  ')}`);
  return { title: 'TurnLens', properties };
}

export function readPackage() {
  return JSON.parse(readFileSync(PACKAGE_JSON, 'utf8'));
}

/** Setting keys whose generated form differs from package.json's. */
export function differences(current, generated) {
  const keys = new Set([...Object.keys(current?.properties ?? {}), ...Object.keys(generated.properties)]);
  const diff = [];
  for (const key of keys) {
    const a = JSON.stringify(current?.properties?.[key]);
    const b = JSON.stringify(generated.properties[key]);
    if (a !== b) diff.push(a === undefined ? `+ ${key}` : b === undefined ? `- ${key}` : `~ ${key}`);
  }
  if (current?.title !== generated.title) diff.push('~ (title)');
  if (!diff.length && JSON.stringify(current) !== JSON.stringify(generated)) diff.push('~ (key order)');
  return diff;
}

function main(argv) {
  const args = argv.slice(2);
  const schemaIndex = args.indexOf('--schema');
  const schema =
    schemaIndex >= 0 ? JSON.parse(readFileSync(args[schemaIndex + 1], 'utf8')) : loadSchema();
  const generated = generate(schema);
  if (args.includes('--print')) {
    process.stdout.write(JSON.stringify(generated, null, 2) + '\n');
    return 0;
  }
  const pkg = readPackage();
  const diff = differences(pkg.contributes?.configuration, generated);
  if (args.includes('--check')) {
    if (diff.length) {
      console.error(`package.json contributes.configuration is out of date (run npm run gen-config):\n  ${diff.join('\n  ')}`);
      return 1;
    }
    console.log(`contributes.configuration matches turnlens schema (${Object.keys(generated.properties).length} settings)`);
    return 0;
  }
  pkg.contributes = { ...pkg.contributes, configuration: generated };
  writeFileSync(PACKAGE_JSON, JSON.stringify(pkg, null, 2) + '\n');
  console.log(
    diff.length
      ? `package.json: ${Object.keys(generated.properties).length} settings written (${diff.length} changed)`
      : 'package.json already up to date',
  );
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    process.exitCode = main(process.argv);
  } catch (error) {
    console.error(`gen-config: ${error.message}`);
    process.exitCode = 2;
  }
}
