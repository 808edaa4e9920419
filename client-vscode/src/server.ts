/** Starting, stopping and talking to `turnlens serve` through vscode-languageclient. */
import { mkdirSync } from 'node:fs';
import * as os from 'node:os';
import * as readline from 'node:readline';
import * as vscode from 'vscode';
import {
  CodeLensRequest,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  InlayHintRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { createMiddleware } from './middleware';
import { CLIENT_ID, CLIENT_NAME, SECTION, STATUS_NOTIFICATION } from './pure/ids';
import {
  LaunchPlan,
  importCheck,
  installCommand,
  notInstalledMessage,
  resolveLaunch,
  safeWorkingDirectory,
  serverEnvironment,
} from './pure/launch';
import { Level, stderrLevel } from './pure/log';
import { LspRange, parseStatus, StatusPayload } from './pure/types';
import { pythonExtensionInterpreter, runCheck } from './python';
import * as settings from './settings';
import { TraceChannel } from './trace';

export interface ServerHooks {
  onStatus(status: StatusPayload): void;
  onStopped(): void;
  showClassification(result: unknown, arg: unknown): void;
  showPlan(result: unknown): void;
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private pending: Promise<LanguageClient | undefined> | undefined;
  private readonly trace: TraceChannel;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly hooks: ServerHooks,
    /** The extension's global storage folder: private to the user and outside every workspace. */
    private readonly storageDir?: string,
  ) {
    this.trace = new TraceChannel(output);
  }

  /** The running client, starting the server first when needed (undefined if it cannot start). */
  async ensureStarted(): Promise<LanguageClient | undefined> {
    if (this.client?.state === State.Running) return this.client;
    this.pending ??= this.start().finally(() => (this.pending = undefined));
    return this.pending;
  }

  async restart(): Promise<LanguageClient | undefined> {
    await this.pending;
    await this.stop();
    return this.ensureStarted();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      if (client.state !== State.Stopped) await client.stop(2000);
    } catch (error) {
      this.output.warn(`Stopping the server: ${String(error)}`);
    }
    await client.dispose().catch(() => undefined);
    this.hooks.onStopped();
  }

  /** Sends workspace/executeCommand to the server (not through the lens middleware). */
  async executeCommand(command: string, arg?: unknown): Promise<unknown> {
    const client = await this.ensureStarted();
    if (!client) throw new Error('the TurnLens server is not running');
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: arg === undefined ? [] : [arg] });
  }

  /** Sends a custom request (e.g. `turnlens/sessionMap`) to the server. */
  async sendRequest(method: string, params: object): Promise<unknown> {
    const client = await this.ensureStarted();
    if (!client) throw new Error('the TurnLens server is not running');
    return client.sendRequest(method, params);
  }

  /** An LSP range from the server (in the negotiated position encoding) as a VS Code range. */
  codeRange(range: LspRange): vscode.Range {
    if (this.client) return this.client.protocol2CodeConverter.asRange(range);
    return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
  }

  protocolUri(uri: vscode.Uri): string {
    return this.client ? this.client.code2ProtocolConverter.asUri(uri) : uri.toString();
  }

  protocolRange(range: vscode.Range): { start: { line: number; character: number }; end: { line: number; character: number } } {
    return {
      start: { line: range.start.line, character: range.start.character },
      end: { line: range.end.line, character: range.end.character },
    };
  }

  /** Tells the server the settings changed (it re-pulls them) and refreshes lenses and hints. */
  async settingsChanged(): Promise<void> {
    const client = this.client;
    if (client?.state !== State.Running) return;
    const section = settings.sanitizeItem(SECTION, settings.sectionObject(vscode.workspace.workspaceFolders?.[0]?.uri));
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: section } });
    this.refreshViews();
  }

  /** Makes VS Code ask again for code lenses and inlay hints of the visible documents. */
  refreshViews(): void {
    const client = this.client;
    if (client?.state !== State.Running) return;
    for (const editor of vscode.window.visibleTextEditors) {
      client.getFeature(CodeLensRequest.method).getProvider(editor.document)?.onDidChangeCodeLensEmitter.fire();
      client.getFeature(InlayHintRequest.method).getProvider(editor.document)?.onDidChangeInlayHints.fire();
    }
  }

  dispose(): void {
    void this.stop();
    this.trace.dispose();
  }

  /** Where both commands run: never a workspace folder, so the workspace cannot shadow the
   * turnlens package (with `-P` and PYTHONSAFEPATH=1; see pure/launch.ts). */
  private workingDirectory(): string {
    if (this.storageDir) {
      try {
        mkdirSync(this.storageDir, { recursive: true, mode: 0o700 });
      } catch (error) {
        this.output.warn(`Could not create ${this.storageDir}: ${String(error)}`);
      }
    }
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
    const cwd = safeWorkingDirectory([this.storageDir, os.homedir(), os.tmpdir()], folders);
    this.output.info(`Server working directory: ${cwd} (outside the workspace)`);
    return cwd;
  }

  private async resolve(): Promise<LaunchPlan> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const launch = settings.launchSettings();
    const unset = !Array.isArray(launch.command) || launch.command.length === 0;
    const noPython = typeof launch.python !== 'string' || launch.python.trim() === '';
    const extensionPython =
      unset && noPython ? await pythonExtensionInterpreter(folder, (line) => this.output.warn(line)) : undefined;
    return resolveLaunch({
      command: launch.command,
      python: launch.python,
      extensionPython,
      workspaceFolder: folder?.fsPath,
      home: os.homedir(),
    });
  }

  private async start(): Promise<LanguageClient | undefined> {
    await this.stop(); // a client that gave up after crashes is replaced, not left behind
    const cwd = this.workingDirectory();
    const env = serverEnvironment(process.env);
    const trusted = settings.isTrusted();
    const plan = await this.resolve();
    this.output.info(`Starting the TurnLens server: ${plan.display} (from ${plan.origin})`);
    this.output.info(
      trusted
        ? 'Workspace trusted: model back-end settings are read from user settings.'
        : 'Restricted Mode: the router back end is forced to "rules" (no network); server and back-end settings come from user settings only.',
    );
    if (plan.python) {
      const check = await runCheck(importCheck(plan.python), cwd, env);
      if (!check.ok) {
        this.output.error(`${notInstalledMessage(plan, check.error)}\n${check.error}`);
        void this.offerInstallHelp(plan, check.error);
        return undefined;
      }
    }
    const serverOptions: ServerOptions = {
      command: plan.server.command,
      args: plan.server.args,
      options: { cwd, env },
    };
    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, this.clientOptions());
    client.onNotification(STATUS_NOTIFICATION, (payload: unknown) => {
      const status = parseStatus(payload);
      if (status) this.hooks.onStatus(status);
    });
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      // vscode-languageclient has already shown "couldn't create connection" (with Go to output)
      this.output.error(
        `The TurnLens server (${plan.display}) did not start: ${String(error)}. ` +
          'Check turnlens.server.command / turnlens.server.python, then run “TurnLens: Restart Server”.',
      );
      this.client = undefined;
      await client.dispose().catch(() => undefined);
      return undefined;
    }
    return client;
  }

  private clientOptions(): LanguageClientOptions {
    return {
      documentSelector: settings.documentFilters(),
      outputChannel: this.output,
      traceOutputChannel: this.trace,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      diagnosticCollectionName: 'turnlens',
      initializationOptions: () => settings.initOptions(),
      initializationFailedHandler: (error) => {
        this.output.error(`The server failed to initialize: ${String(error)}`);
        return false; // no retry, and no second pop-up: start() reports it
      },
      markdown: { isTrusted: false, supportHtml: false },
      stdioOptions: {
        stdout: (input, channel) => {
          readline.createInterface({ input, crlfDelay: Infinity }).on('line', (line) => channel.info(line));
        },
        stderr: (input, channel) => {
          let level: Level = 'info';
          readline.createInterface({ input, crlfDelay: Infinity }).on('line', (line) => {
            level = stderrLevel(line, level);
            channel[level](line);
          });
        },
      },
      middleware: createMiddleware({
        showClassification: (result, arg) => this.hooks.showClassification(result, arg),
        showPlan: (result) => this.hooks.showPlan(result),
        sanitize: (section, value, scopeUri) => settings.sanitizeItem(section, value, scopeUri),
        enabled: (key, resource) => settings.featureEnabled(key, resource),
      }),
    };
  }

  private async offerInstallHelp(plan: LaunchPlan, error: string): Promise<void> {
    const install = installCommand(plan.python ?? [plan.server.command]);
    const choice = await vscode.window.showErrorMessage(
      notInstalledMessage(plan, error),
      'How to Install',
      'Open Settings',
      'Show Output',
    );
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'turnlens.server');
    } else if (choice === 'Show Output') {
      this.output.show(true);
    } else if (choice === 'How to Install') {
      const next = await vscode.window.showInformationMessage(
        'Install TurnLens for that Python, then run “TurnLens: Restart Server”.',
        {
          modal: true,
          detail:
            `Run in a terminal:\n\n  ${install}\n\n(TurnLens is not on the package index yet: clone its repository, or build a wheel with ` +
            '`python3 -m pip wheel --no-deps <repo>`; docs/editors/install.md has venv and pipx set-ups.)\n\n' +
            'To use another interpreter, set turnlens.server.python (a path) or turnlens.server.command ' +
            '(the full command, e.g. ["/path/to/python", "-m", "turnlens", "serve"]).',
        },
        'Copy Command',
        'Restart Server',
      );
      if (next === 'Copy Command') await vscode.env.clipboard.writeText(install);
      if (next === 'Restart Server') await this.restart();
    }
  }
}
