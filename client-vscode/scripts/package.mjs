#!/usr/bin/env node
// Packages the built extension into turnlens-<version>.vsix with vsce (run `npm run build` first;
// `npm run package` does both).
//
// The README in the repository shows the screenshot by its path in the repository
// (../docs/img/vscode.png). Inside the .vsix that path would point outside the extension, so the
// README packaged is a copy whose image points at images/vscode.png, a copy of the screenshot
// that goes into the package; links are then left as they are (no repository URL to rewrite them to).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const screenshot = join(root, '..', 'docs', 'img', 'vscode.png');
const IMAGE_LINK = '../docs/img/vscode.png';

if (!existsSync(join(root, 'dist', 'extension.js'))) {
  console.error('dist/extension.js is missing: run `npm run build` first');
  process.exit(1);
}

rmSync(join(root, 'images'), { recursive: true, force: true });
let readme = readFileSync(join(root, 'README.md'), 'utf8');
if (existsSync(screenshot)) {
  mkdirSync(join(root, 'images'), { recursive: true });
  copyFileSync(screenshot, join(root, 'images', 'vscode.png'));
  readme = readme.split(IMAGE_LINK).join('images/vscode.png');
} else {
  console.warn(`warning: ${screenshot} is missing; the packaged README has no screenshot`);
  readme = readme
    .split('\n')
    .filter((line) => !line.includes(IMAGE_LINK))
    .join('\n');
}
mkdirSync(join(root, 'out'), { recursive: true });
const packagedReadme = join(root, 'out', 'README.md');
writeFileSync(packagedReadme, readme);

const vsce = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
const out = `turnlens-${version}.vsix`;
execFileSync(
  vsce,
  [
    'package',
    '--no-dependencies', // dist/extension.js is a bundle: node_modules is not needed
    '--readme-path', 'out/README.md',
    '--no-rewrite-relative-links',
    '--allow-missing-repository',
    '--skip-license',
    '--out', out,
  ],
  { cwd: root, stdio: 'inherit' },
);
console.log(`packaged ${out}`);
