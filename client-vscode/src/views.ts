/** Showing server results to the user: a quick pick for a classification or a session plan. */
import * as vscode from 'vscode';
import {
  DetailItem,
  classificationHeadline,
  classificationItems,
  classificationText,
  planHeadline,
  planItems,
} from './pure/format';
import { parseClassification, parsePlan } from './pure/types';

interface PickItem extends vscode.QuickPickItem {
  line?: number;
}

function toPickItems(items: DetailItem[]): PickItem[] {
  return items.map((item) =>
    item.separator
      ? { label: item.label, kind: vscode.QuickPickItemKind.Separator }
      : { label: item.label, description: item.description, detail: item.detail, line: item.line },
  );
}

/** Shows items in a quick pick; choosing an item with a line reveals it in `document`. */
function showPick(title: string, items: DetailItem[], document?: vscode.TextDocument): void {
  const pick = vscode.window.createQuickPick<PickItem>();
  pick.title = title;
  pick.placeholder = document ? 'Choose a rule to go to its line — Esc to close' : 'Esc to close';
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.items = toPickItems(items);
  pick.onDidAccept(async () => {
    const line = pick.selectedItems[0]?.line;
    pick.hide();
    if (line === undefined || !document) return;
    const editor = await vscode.window.showTextDocument(document, { preserveFocus: false });
    const position = new vscode.Position(Math.min(line, document.lineCount - 1), 0);
    editor.selection = new vscode.Selection(position, position);
    editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  });
  pick.onDidHide(() => pick.dispose());
  pick.show();
}

export class Views {
  constructor(private readonly output: vscode.OutputChannel) {}

  /** Shows the result of `turnlens.classify`; returns false when it was not a classification. */
  showClassification(result: unknown, document?: vscode.TextDocument): boolean {
    const classification = parseClassification(result);
    if (!classification) {
      this.unexpected('turnlens.classify', result);
      return false;
    }
    const headline = classificationHeadline(classification);
    this.output.appendLine(`[classify] ${headline}\n${classificationText(classification)}`);
    showPick(`TurnLens: ${headline}`, classificationItems(classification), document);
    return true;
  }

  /** Shows the result of `turnlens.plan`. */
  showPlan(result: unknown): boolean {
    const plan = parsePlan(result);
    if (!plan) {
      this.unexpected('turnlens.plan', result);
      return false;
    }
    const headline = planHeadline(plan);
    this.output.appendLine(`[plan] ${headline} — ${plan.message}`);
    showPick(`TurnLens session plan: ${headline}`, planItems(plan));
    return true;
  }

  private unexpected(command: string, result: unknown): void {
    this.output.appendLine(`[${command}] unexpected result: ${JSON.stringify(result)}`);
    void vscode.window.showErrorMessage(`TurnLens: the server's ${command} returned no usable result (see the output).`);
  }
}

/** Finds the open document a server argument (`{"uri": ...}`) points at. */
export function documentOf(arg: unknown): vscode.TextDocument | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const uri = (arg as { uri?: unknown }).uri;
  if (typeof uri !== 'string') return undefined;
  const wanted = vscode.Uri.parse(uri).toString();
  return vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === wanted);
}
