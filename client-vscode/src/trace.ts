/**
 * vscode-languageclient 11 traces the protocol only when its trace channel's log level is Trace.
 * This adapter makes the `turnlens.trace.server` setting decide that, and writes the trace into
 * the one TurnLens output channel.
 */
import * as vscode from 'vscode';
import { traceEnabled } from './pure/log';

export class TraceChannel implements vscode.LogOutputChannel {
  private readonly changed = new vscode.EventEmitter<vscode.LogLevel>();
  private readonly listener: vscode.Disposable;
  readonly onDidChangeLogLevel = this.changed.event;

  constructor(private readonly target: vscode.LogOutputChannel) {
    this.listener = vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('turnlens.trace.server')) this.changed.fire(this.logLevel);
    });
  }

  get name(): string {
    return this.target.name;
  }

  get logLevel(): vscode.LogLevel {
    const setting = vscode.workspace.getConfiguration('turnlens').get<unknown>('trace.server', 'off');
    return traceEnabled(setting) ? vscode.LogLevel.Trace : vscode.LogLevel.Info;
  }

  trace(message: string, ...args: unknown[]): void {
    if (this.logLevel === vscode.LogLevel.Trace) this.target.info(`[trace] ${message}`, ...args);
  }
  debug(message: string, ...args: unknown[]): void {
    this.target.debug(message, ...args);
  }
  info(message: string, ...args: unknown[]): void {
    this.target.info(message, ...args);
  }
  warn(message: string, ...args: unknown[]): void {
    this.target.warn(message, ...args);
  }
  error(error: string | Error, ...args: unknown[]): void {
    this.target.error(error, ...args);
  }
  append(value: string): void {
    this.target.append(value);
  }
  appendLine(value: string): void {
    this.target.appendLine(value);
  }
  replace(value: string): void {
    this.target.replace(value);
  }
  clear(): void {
    this.target.clear();
  }
  show(columnOrPreserveFocus?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
    this.target.show(typeof columnOrPreserveFocus === 'boolean' ? columnOrPreserveFocus : preserveFocus);
  }
  hide(): void {
    this.target.hide();
  }
  dispose(): void {
    this.listener.dispose();
    this.changed.dispose();
  }
}
