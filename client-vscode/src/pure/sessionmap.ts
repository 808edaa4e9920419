/**
 * The session map's contract with the server (`turnlens/sessionMap`) and with its webview page
 * (messages it posts), parsed defensively. This module does not import `vscode`.
 */
import { randomBytes } from 'node:crypto';
import { isObject, LspRange, parseRange } from './types';

/** One mark of the map: what the extension needs to reveal it. The page gets the whole map. */
export interface MapUnit {
  i: number;
  line: number;
  range: LspRange | null;
}

export interface SessionMapData {
  uri: string;
  version: number;
  units: MapUnit[];
  /** The map exactly as the server sent it, for the page to draw. */
  raw: Record<string, unknown>;
}

export interface SessionMapResponse {
  map: SessionMapData;
  html: string | null;
}

export type PageMessage = { type: 'reveal'; index: number } | { type: 'ready' };

/** A fresh nonce for the page's content security policy (the server accepts 8–128 base64 chars). */
export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}

function parseUnit(value: unknown): MapUnit | null {
  if (!isObject(value) || typeof value.i !== 'number') return null;
  return { i: value.i, line: typeof value.line === 'number' ? value.line : 0, range: parseRange(value.range) };
}

export function parseMapResponse(value: unknown): SessionMapResponse | undefined {
  if (!isObject(value) || !isObject(value.map)) return undefined;
  const raw = value.map;
  if (typeof raw.uri !== 'string' || !Array.isArray(raw.units)) return undefined;
  const units = raw.units.map(parseUnit).filter((u): u is MapUnit => u !== null);
  return {
    map: { uri: raw.uri, version: typeof raw.version === 'number' ? raw.version : 0, units, raw },
    html: typeof value.html === 'string' ? value.html : null,
  };
}

export function parsePageMessage(value: unknown): PageMessage | undefined {
  if (!isObject(value)) return undefined;
  if (value.type === 'ready') return { type: 'ready' };
  if (value.type === 'reveal' && typeof value.index === 'number' && Number.isInteger(value.index)) {
    return { type: 'reveal', index: value.index };
  }
  return undefined;
}

/** The LSP range of the unit whose index is `index` (the `i` of a mark), if the map has one. */
export function unitRange(map: SessionMapData, index: number): LspRange | null {
  return map.units.find((unit) => unit.i === index)?.range ?? null;
}

/**
 * True when the page's own content security policy is as strict as a webview needs: nothing by
 * default, scripts and styles only with `nonce`, no remote sources. Anything else is not shown.
 */
export function hasStrictCsp(html: string, nonce: string): boolean {
  const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
  if (!meta) return false;
  const directives = new Map(
    meta[1]
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map((words) => [words[0].toLowerCase(), words.slice(1)] as const),
  );
  const only = (name: string, allowed: string[]): boolean => {
    const sources = directives.get(name);
    return sources === undefined || sources.every((source) => allowed.includes(source));
  };
  const nonceSource = `'nonce-${nonce}'`;
  return (
    directives.get('default-src')?.join(' ') === "'none'" &&
    directives.get('script-src')?.includes(nonceSource) === true &&
    only('script-src', [nonceSource]) &&
    only('style-src', [nonceSource]) &&
    only('img-src', ['data:']) &&
    !/<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i.test(html)
  );
}
