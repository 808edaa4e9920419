#!/usr/bin/env node
// Bundles the extension with esbuild into dist/extension.js (vscode is external).
//   node scripts/build.mjs            production bundle (minified, with a source map)
//   node scripts/build.mjs --watch    rebuild on change
//   node scripts/build.mjs --tests    bundle test/unit/*.test.ts into out/test/unit/ for `node --test`
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));

if (args.has('--tests')) {
  const dir = join(root, 'test', 'unit');
  const entryPoints = readdirSync(dir)
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(dir, name));
  rmSync(join(root, 'out', 'test', 'unit'), { recursive: true, force: true });
  await esbuild.build({
    entryPoints,
    outdir: join(root, 'out', 'test', 'unit'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    // the pure modules must not need vscode: bundling fails if one imports it
    logLevel: 'warning',
  });
} else {
  const options = {
    entryPoints: [join(root, 'src', 'extension.ts')],
    outfile: join(root, 'dist', 'extension.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    minify: !args.has('--watch'),
    sourcemap: true,
    logLevel: 'info',
  };
  if (args.has('--watch')) {
    const context = await esbuild.context(options);
    await context.watch();
  } else {
    rmSync(join(root, 'dist'), { recursive: true, force: true });
    await esbuild.build(options);
  }
}
