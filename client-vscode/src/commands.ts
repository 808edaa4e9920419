/** The palette commands (category "TurnLens"). Ids differ from the server's own commands. */
import * as vscode from 'vscode';
import { SessionMaps } from './mapview';
import { COMMANDS, CommandId, SERVER_COMMANDS, TOGGLES, toggleMessage } from './pure/ids';
import { ServerManager } from './server';
import * as settings from './settings';
import { Views } from './views';

export interface CommandDeps {
  server: ServerManager;
  views: Views;
  output: vscode.OutputChannel;
  maps: SessionMaps;
}

function activeEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) void vscode.window.showInformationMessage('TurnLens: open a prompt or transcript first.');
  return editor;
}

async function run<T>(what: string, action: () => Promise<T>): Promise<T | undefined> {
  try {
    return await action();
  } catch (error) {
    void vscode.window.showErrorMessage(`TurnLens: ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** The server argument for a document (or part of it): by URI when the server has it open, else its text. */
function classifyArgument(deps: CommandDeps, document: vscode.TextDocument, range?: vscode.Range): object {
  if (settings.isTurnLensDocument(document)) {
    const uri = deps.server.protocolUri(document.uri);
    return range ? { uri, range: deps.server.protocolRange(range) } : { uri };
  }
  return { text: document.getText(range) };
}

async function classify(deps: CommandDeps, selectionOnly: boolean): Promise<void> {
  const editor = activeEditor();
  if (!editor) return;
  const selection = editor.selection;
  if (selectionOnly && selection.isEmpty) {
    void vscode.window.showInformationMessage('TurnLens: select some text to classify (or run “TurnLens: Classify Document”).');
    return;
  }
  const arg = classifyArgument(deps, editor.document, selectionOnly ? selection : undefined);
  const result = await run('classify', () => deps.server.executeCommand(SERVER_COMMANDS.classify, arg));
  if (result !== undefined) deps.views.showClassification(result, editor.document);
}

async function showPlan(deps: CommandDeps): Promise<void> {
  const editor = activeEditor();
  if (!editor) return;
  if (!settings.isTurnLensDocument(editor.document)) {
    void vscode.window.showInformationMessage('TurnLens: this document is not a TurnLens document (see turnlens.documentSelector).');
    return;
  }
  let budget = settings.budget(editor.document.uri);
  if (budget === 0) {
    const answer = await vscode.window.showInputBox({
      title: 'TurnLens: session plan',
      prompt: 'Token budget for the session (set turnlens.budget to skip this question)',
      value: '8000',
      validateInput: (value) => (/^\s*\d+\s*$/.test(value) ? undefined : 'A whole number of tokens'),
    });
    if (answer === undefined) return;
    budget = Number.parseInt(answer, 10);
  }
  const arg = { uri: deps.server.protocolUri(editor.document.uri), budget };
  const result = await run('session plan', () => deps.server.executeCommand(SERVER_COMMANDS.plan, arg));
  if (result !== undefined) deps.views.showPlan(result);
}

async function showMap(deps: CommandDeps, uri?: unknown): Promise<void> {
  // from the editor title: the file's URI; from the palette: the active editor
  const document =
    uri instanceof vscode.Uri
      ? vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString())
      : activeEditor()?.document;
  if (!document) return;
  if (!settings.isTurnLensDocument(document)) {
    void vscode.window.showInformationMessage('TurnLens: this document is not a TurnLens document (see turnlens.documentSelector).');
    return;
  }
  const column = vscode.window.visibleTextEditors.find((editor) => editor.document === document)?.viewColumn;
  await run('session map', () => deps.maps.show(document, column));
}

async function toggle(deps: CommandDeps, command: string): Promise<void> {
  const spec = TOGGLES[command];
  const resource = vscode.window.activeTextEditor?.document.uri;
  const result = await run('changing the setting', () => settings.toggleSetting(spec.key, resource));
  if (!result) return;
  deps.server.refreshViews();
  vscode.window.setStatusBarMessage(toggleMessage(spec, result.enabled, result.target), 4000);
}

async function reload(deps: CommandDeps): Promise<void> {
  const result = await run('reload', () => deps.server.executeCommand(SERVER_COMMANDS.reload));
  if (result !== undefined) {
    deps.server.refreshViews();
    vscode.window.setStatusBarMessage('TurnLens: settings and rules reloaded', 4000);
  }
}

/** Every contributed command, with its handler (a test checks this table against package.json). */
export function handlers(deps: CommandDeps): Record<CommandId, (arg?: unknown) => Promise<void> | void> {
  return {
    [COMMANDS.classifyDocument]: () => classify(deps, false),
    [COMMANDS.classifySelection]: () => classify(deps, true),
    [COMMANDS.showSessionPlan]: () => showPlan(deps),
    [COMMANDS.showSessionMap]: (uri) => showMap(deps, uri),
    [COMMANDS.toggleDiagnostics]: () => toggle(deps, COMMANDS.toggleDiagnostics),
    [COMMANDS.toggleCodeLens]: () => toggle(deps, COMMANDS.toggleCodeLens),
    [COMMANDS.toggleInlayHints]: () => toggle(deps, COMMANDS.toggleInlayHints),
    [COMMANDS.toggleRouter]: () => toggle(deps, COMMANDS.toggleRouter),
    [COMMANDS.reloadServer]: () => reload(deps),
    [COMMANDS.restartServer]: async () => {
      await deps.server.restart();
    },
    [COMMANDS.showOutput]: () => deps.output.show(true),
  };
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  return Object.entries(handlers(deps)).map(([id, handler]) => vscode.commands.registerCommand(id, handler));
}
