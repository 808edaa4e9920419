/** The status bar item: the active TurnLens document's class and effort (from `turnlens/status`). */
import * as vscode from 'vscode';
import { COMMANDS } from './pure/ids';
import { statusView } from './pure/format';
import { StatusPayload } from './pure/types';
import { featureEnabled, isTurnLensDocument } from './settings';

/** Canonical form of a URI string, so `file:///a%20b` and `file:///a b` meet in the map. */
function key(uri: string | vscode.Uri): string {
  return (typeof uri === 'string' ? vscode.Uri.parse(uri) : uri).toString();
}

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly statuses = new Map<string, StatusPayload>();
  private readonly disposables: { dispose(): unknown }[] = [];

  constructor() {
    this.item = vscode.window.createStatusBarItem('turnlens.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'TurnLens';
    this.item.command = COMMANDS.classifyDocument;
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
      vscode.workspace.onDidCloseTextDocument((doc) => this.statuses.delete(key(doc.uri))),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('turnlens')) this.update();
      }),
    );
    this.update();
  }

  /** Records a `turnlens/status` notification (older versions of a document are ignored). */
  set(status: StatusPayload): void {
    const k = key(status.uri);
    const known = this.statuses.get(k);
    if (known && status.version < known.version) return;
    this.statuses.set(k, status);
    this.update();
  }

  get(uri: vscode.Uri): StatusPayload | undefined {
    return this.statuses.get(key(uri));
  }

  clear(): void {
    this.statuses.clear();
    this.update();
  }

  update(): void {
    const document = vscode.window.activeTextEditor?.document;
    const active = !!document && isTurnLensDocument(document);
    void vscode.commands.executeCommand('setContext', 'turnlens.active', active);
    if (!document || !active || !featureEnabled('status.enable', document.uri)) {
      this.item.hide();
      return;
    }
    const view = statusView(this.statuses.get(key(document.uri)));
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.accessibilityInformation = { label: `TurnLens: ${view.text.replace(/\$\([a-z-~]+\)\s*/g, '')}` };
    this.item.show();
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}
