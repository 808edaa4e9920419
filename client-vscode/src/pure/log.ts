/** Server stderr lines → log levels. Pure. */

export type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';

const LEVEL_WORD = /\b(TRACE|DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b/;

/**
 * The level of one line the server wrote to stderr. Python's logging puts the level name near
 * the start (`INFO:turnlens...`, `2026-01-01 12:00:00 INFO turnlens ...`); anything else — a
 * traceback line, say — is shown at the level of the last line that had one.
 */
export function stderrLevel(line: string, previous: Level = 'info'): Level {
  const match = LEVEL_WORD.exec(line.slice(0, 60));
  if (!match) return previous;
  switch (match[1]) {
    case 'TRACE':
      return 'trace';
    case 'DEBUG':
      return 'debug';
    case 'INFO':
      return 'info';
    case 'WARNING':
    case 'WARN':
      return 'warn';
    default:
      return 'error';
  }
}

/** `turnlens.trace.server` → whether protocol tracing is on. */
export function traceEnabled(setting: unknown): boolean {
  return setting === 'messages' || setting === 'verbose' || setting === 'compact';
}
