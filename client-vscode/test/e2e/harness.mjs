// The end-to-end harness: code-server 4.100.3 (VS Code 1.100.3) from npm, driven by Debian's headless
// Chromium through playwright-core. No VS Code or browser download. See shared notes "real editors".
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REPO = join(ROOT, '..');
export const ARTIFACTS = join(ROOT, 'test', 'e2e', 'artifacts');
const CHROMIUM = process.env.TURNLENS_CHROMIUM || '/usr/bin/chromium';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Python that runs `-m turnlens serve`: $TURNLENS_PYTHON or python3, as an absolute path. */
export function serverPython() {
  const python = process.env.TURNLENS_PYTHON || 'python3';
  return execFileSync(python, ['-c', 'import sys, turnlens; print(sys.executable)'], { encoding: 'utf8' }).trim();
}

/** code-server's launcher, installed into the cache on first use (scripts/install-code-server.sh). */
export function codeServer() {
  const out = execFileSync('bash', [join(ROOT, 'scripts', 'install-code-server.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').pop();
}

export function vsixPath() {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const path = join(ROOT, `turnlens-${version}.vsix`);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run package\` first`);
  return path;
}

/** The multi-turn example: docs/examples/session.md when the repo has it, else our fixture. */
export function exampleSession() {
  const docs = join(REPO, 'docs', 'examples', 'session.md');
  return existsSync(docs) ? docs : join(ROOT, 'test', 'fixtures', 'session.md');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await sleep(200);
  }
}

/**
 * Starts code-server with the built .vsix installed and a fresh workspace folder holding the example
 * session, and opens it in headless Chromium. `trusted: false` leaves workspace trust on, so the folder
 * opens in Restricted Mode.
 */
export async function startEditor({ name, trusted = true, userSettings = {}, workspaceSettings, files = {}, viewport }) {
  const base = mkdtempSync(join(tmpdir(), `turnlens-e2e-${name}-`));
  const dirs = {
    base,
    userData: join(base, 'user-data'),
    extensions: join(base, 'extensions'),
    xdg: join(base, 'xdg'),
    browser: join(base, 'browser'),
    workspace: join(base, 'workspace'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  cpSync(exampleSession(), join(dirs.workspace, 'session.md'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dirs.workspace, file)), { recursive: true });
    writeFileSync(join(dirs.workspace, file), text);
  }
  if (workspaceSettings) {
    mkdirSync(join(dirs.workspace, '.vscode'), { recursive: true });
    writeFileSync(join(dirs.workspace, '.vscode', 'settings.json'), JSON.stringify(workspaceSettings, null, 2));
  }
  const settings = {
    'security.workspace.trust.enabled': !trusted,
    'security.workspace.trust.startupPrompt': 'never',
    'security.workspace.trust.banner': 'always',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'extensions.ignoreRecommendations': true,
    'update.mode': 'none',
    'telemetry.telemetryLevel': 'off',
    'chat.commandCenter.enabled': false,
    'workbench.colorTheme': 'Default Dark Modern',
    'window.commandCenter': false,
    'editor.minimap.enabled': false,
    'editor.wordWrap': 'on',
    'files.trimTrailingWhitespace': false,
    'turnlens.server.command': [serverPython(), '-m', 'turnlens', 'serve'],
    ...userSettings,
  };
  writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));

  const bin = codeServer();
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: join(dirs.xdg, 'config'),
    XDG_DATA_HOME: join(dirs.xdg, 'data'),
    XDG_CACHE_HOME: join(dirs.xdg, 'cache'),
  };
  const common = ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  execFileSync(bin, [...common, '--install-extension', vsixPath()], { env, stdio: 'pipe' });

  const port = await freePort();
  const log = [];
  const child = spawn(
    bin,
    [
      '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
      ...common, dirs.workspace,
    ],
    { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout.on('data', (chunk) => log.push(String(chunk)));
  child.stderr.on('data', (chunk) => log.push(String(chunk)));
  const url = `http://127.0.0.1:${port}`;

  let context;
  const stop = async () => {
    await context?.close().catch(() => undefined);
    if (child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM'); // the code-server process group we started
      } catch {
        // already gone
      }
      await Promise.race([new Promise((resolve) => child.once('exit', resolve)), sleep(5000)]);
      if (child.exitCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    if (!process.env.TURNLENS_E2E_KEEP) rmSync(base, { recursive: true, force: true });
  };

  try {
    await waitForHttp(`${url}/healthz`, 30000);
    context = await chromium.launchPersistentContext(dirs.browser, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: viewport ?? { width: 1400, height: 860 },
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
        '--disable-sync', '--no-first-run', '--disable-dev-shm-usage',
      ],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${url}/?folder=${encodeURIComponent(dirs.workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
    return { page, dirs, url, log, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The extension's output channel as VS Code wrote it to disk (LogOutputChannel files). */
export function outputLog(dirs) {
  const found = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/TurnLens\.log$/.test(name)) found.push(path);
    }
  };
  for (const root of [join(dirs.userData, 'logs'), join(dirs.xdg, 'data')]) if (existsSync(root)) walk(root);
  return found.map((path) => readFileSync(path, 'utf8')).join('\n');
}

export async function waitFor(what, predicate, timeoutMs = 30000, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await predicate();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

export function saveArtifact(name, data) {
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, name), data);
  return join(ARTIFACTS, name);
}
