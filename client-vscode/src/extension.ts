/** Activation only: wires the output channel, status bar, server and commands together. */
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { CLIENT_NAME, RESTART_KEYS, SECTION } from './pure/ids';
import { onPythonInterpreterChange } from './python';
import { ServerManager } from './server';
import { SessionMaps } from './mapview';
import { launchSettings } from './settings';
import { StatusBar } from './status';
import { documentOf, Views } from './views';

let server: ServerManager | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  const status = new StatusBar();
  const views = new Views(output);
  const manager = new ServerManager(output, {
    onStatus: (payload) => {
      status.set(payload);
      maps.onStatus(payload);
    },
    onStopped: () => status.clear(),
    showClassification: (result, arg) => views.showClassification(result, documentOf(arg)),
    showPlan: (result) => views.showPlan(result),
  }, context.globalStorageUri.fsPath);
  server = manager;
  const maps = new SessionMaps(manager, output);

  context.subscriptions.push(
    output,
    status,
    maps,
    manager,
    ...registerCommands({ server: manager, views, output, maps }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (RESTART_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) {
        output.info('Server settings changed: restarting the server.');
        void manager.restart();
      } else if (event.affectsConfiguration(SECTION)) {
        void manager.settingsChanged();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      output.info('Workspace trusted: restarting the server with the full settings.');
      void manager.restart();
    }),
  );

  void onPythonInterpreterChange(() => {
    const launch = launchSettings();
    const configured = (Array.isArray(launch.command) && launch.command.length > 0) || !!launch.python;
    if (!configured) {
      output.info('The Python interpreter changed: restarting the server.');
      void manager.restart();
    }
  }).then((disposable) => disposable && context.subscriptions.push(disposable));

  void manager.ensureStarted();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
