/**
 * The `turnlens.documentSelector` setting → VS Code / LSP document filters. Pure.
 *
 * Each entry is either a language id (`markdown`, `plaintext`) or a glob (anything with `*`,
 * `?`, `/`, `.`, `[` or `{`). A glob without a directory part matches the file name anywhere
 * (`CLAUDE.md` → `**\/CLAUDE.md`), because VS Code matches filter patterns against full paths.
 */

export interface DocumentFilter {
  scheme: string;
  language?: string;
  pattern?: string;
}

export const DEFAULT_SELECTOR: readonly string[] = [
  'markdown',
  'plaintext',
  '**/*.prompt.md',
  '**/*.prompt',
  '**/*.chat.md',
  '**/CLAUDE.md',
  '**/AGENTS.md',
  // session files of coding agents and chat exports (the server stays silent on other JSON)
  '**/*.jsonl',
  '**/conversations.json',
  '**/.gemini/**/*.json',
];

/** Where TurnLens works: files on disk and unsaved editors (not git diffs, output panes, …). */
export const SCHEMES: readonly string[] = ['file', 'untitled'];

const GLOB_CHARS = /[*?/\\.[\]{}]/;

export function isGlob(entry: string): boolean {
  return GLOB_CHARS.test(entry);
}

export function normalizeGlob(entry: string): string {
  const glob = entry.replace(/\\/g, '/');
  if (glob.startsWith('/') || glob.startsWith('**/') || /^[A-Za-z]:\//.test(glob)) return glob;
  return `**/${glob.replace(/^\.\//, '')}`;
}

/** The valid, de-duplicated entries of the setting; the default when it is unusable. */
export function selectorEntries(setting: unknown): string[] {
  if (!Array.isArray(setting)) return [...DEFAULT_SELECTOR];
  const entries = setting
    .filter((entry): entry is string => typeof entry === 'string')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const unique = [...new Set(entries)];
  return unique.length ? unique : [...DEFAULT_SELECTOR];
}

export function toDocumentFilters(setting: unknown): DocumentFilter[] {
  const filters: DocumentFilter[] = [];
  for (const entry of selectorEntries(setting)) {
    for (const scheme of SCHEMES) {
      if (isGlob(entry)) {
        // untitled documents have no path a glob could match
        if (scheme === 'file') filters.push({ scheme, pattern: normalizeGlob(entry) });
      } else {
        filters.push({ scheme, language: entry });
      }
    }
  }
  return filters;
}
