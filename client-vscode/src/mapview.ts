/**
 * "TurnLens: Show Session Map": the server's session map page in a webview beside the document,
 * redrawn as the document changes; choosing a mark selects that turn in the editor.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SESSION_MAP_REQUEST } from './pure/ids';
import { hasStrictCsp, newNonce, parseMapResponse, parsePageMessage, SessionMapData, unitRange } from './pure/sessionmap';
import { StatusPayload } from './pure/types';
import { ServerManager } from './server';

const VIEW_TYPE = 'turnlens.sessionMap';
/** Quiet time after an edit before the map is asked for again (the server debounces too). */
const EDIT_DELAY_MS = 400;

function key(uri: string | vscode.Uri): string {
  return (typeof uri === 'string' ? vscode.Uri.parse(uri) : uri).toString();
}

/** One webview panel showing the map of one document. */
class MapPanel implements vscode.Disposable {
  private map: SessionMapData;
  private readonly shownVersion: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private busy = false;
  private again = false;
  /** Ask even when the map already describes the document's version (settings may have changed). */
  private force = false;
  private disposed = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly document: vscode.TextDocument,
    readonly panel: vscode.WebviewPanel,
    first: SessionMapData,
    private readonly column: vscode.ViewColumn,
    private readonly deps: { server: ServerManager; output: vscode.LogOutputChannel; closed(panel: MapPanel): void },
  ) {
    this.map = first;
    this.shownVersion = first.version;
    this.disposables.push(
      panel.webview.onDidReceiveMessage((message: unknown) => this.received(message)),
      panel.onDidDispose(() => this.dispose()),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document === document && event.contentChanges.length > 0) this.schedule(EDIT_DELAY_MS);
      }),
      vscode.workspace.onDidCloseTextDocument((closed) => {
        if (closed === document) panel.dispose();
      }),
    );
  }

  /** Asks for the map again after `delayMs` (a newer call replaces a pending one). */
  schedule(delayMs: number, force = false): void {
    if (this.disposed) return;
    if (force) this.force = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, delayMs);
  }

  private async refresh(): Promise<void> {
    if (this.disposed) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    if (!this.force && this.map.version === this.document.version) return;
    this.force = false;
    this.busy = true;
    try {
      const uri = this.deps.server.protocolUri(this.document.uri);
      const response = parseMapResponse(await this.deps.server.sendRequest(SESSION_MAP_REQUEST, { uri }));
      if (!response || this.gone()) return;
      if (response.map.version < this.map.version) return;
      this.map = response.map;
      await this.post();
      // the server answered for an older text than the editor has: its newer analysis follows
      if (response.map.version < this.document.version) this.schedule(EDIT_DELAY_MS);
    } catch (error) {
      this.deps.output.warn(`Session map of ${this.document.uri.toString()}: ${String(error)}`);
    } finally {
      this.busy = false;
      if (this.again) {
        this.again = false;
        this.schedule(0);
      }
    }
  }

  /** Whether the panel was closed (checked again after every wait). */
  private gone(): boolean {
    return this.disposed;
  }

  private async post(): Promise<void> {
    await this.panel.webview.postMessage({ type: 'update', data: { sessions: [this.map.raw] } });
  }

  private received(message: unknown): void {
    const parsed = parsePageMessage(message);
    if (!parsed) return;
    if (parsed.type === 'ready') {
      // a page reloaded after being hidden starts from the map it was first given
      if (this.map.version !== this.shownVersion) void this.post();
      return;
    }
    void this.reveal(parsed.index);
  }

  /** Selects the unit's text in the document's editor (opening it where it was if it is hidden). */
  private async reveal(index: number): Promise<void> {
    const lspRange = unitRange(this.map, index);
    if (!lspRange) return;
    const range = this.deps.server.codeRange(lspRange);
    const visible = vscode.window.visibleTextEditors.find((editor) => editor.document === this.document);
    const editor = await vscode.window.showTextDocument(this.document, {
      viewColumn: visible?.viewColumn ?? this.column,
      preserveFocus: false,
    });
    // the cursor goes to the start of the turn, the selection covers the whole of it
    editor.selection = new vscode.Selection(range.end, range.start);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const disposable of this.disposables) disposable.dispose();
    this.panel.dispose();
    this.deps.closed(this);
  }
}

/** All open session maps, one per document. */
export class SessionMaps implements vscode.Disposable {
  private readonly panels = new Map<string, MapPanel>();

  constructor(
    private readonly server: ServerManager,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  /** Opens (or brings forward) the map of `document` beside it. */
  async show(document: vscode.TextDocument, column: vscode.ViewColumn = vscode.ViewColumn.One): Promise<void> {
    const k = key(document.uri);
    const open = this.panels.get(k);
    if (open) {
      open.panel.reveal(undefined, true);
      open.schedule(0);
      return;
    }
    const nonce = newNonce();
    const uri = this.server.protocolUri(document.uri);
    const answer = await this.server.sendRequest(SESSION_MAP_REQUEST, { uri, html: true, vscode: true, nonce });
    const response = parseMapResponse(answer);
    if (!response?.html) throw new Error('the server sent no session map page');
    if (!hasStrictCsp(response.html, nonce)) throw new Error('the session map page has no strict content security policy');
    const again = this.panels.get(k); // a second click while the first request was on its way
    if (again) {
      again.panel.reveal(undefined, true);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      VIEW_TYPE,
      `Session Map: ${path.basename(document.uri.path)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, enableFindWidget: true, localResourceRoots: [], retainContextWhenHidden: false },
    );
    panel.webview.html = response.html;
    const mapPanel = new MapPanel(document, panel, response.map, column, {
      server: this.server,
      output: this.output,
      closed: (closed) => {
        if (this.panels.get(k) === closed) this.panels.delete(k);
      },
    });
    this.panels.set(k, mapPanel);
    // edits made while the page was being built
    if (response.map.version !== document.version) mapPanel.schedule(0);
  }

  /** The server analysed a document (after an edit, or with new settings): its map is drawn again. */
  onStatus(status: StatusPayload): void {
    this.panels.get(key(status.uri))?.schedule(0, true);
  }

  dispose(): void {
    for (const panel of [...this.panels.values()]) panel.dispose();
    this.panels.clear();
  }
}
