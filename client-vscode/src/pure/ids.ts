/** Command ids, setting keys and message names shared by the extension and its tests. Pure. */

/** The extension's own palette commands. They differ from the server's command ids, which
 * vscode-languageclient registers by itself (registering the same id twice throws). */
export const COMMANDS = {
  classifyDocument: 'turnlens.classifyDocument',
  classifySelection: 'turnlens.classifySelection',
  showSessionPlan: 'turnlens.showSessionPlan',
  showSessionMap: 'turnlens.showSessionMap',
  toggleDiagnostics: 'turnlens.toggleDiagnostics',
  toggleCodeLens: 'turnlens.toggleCodeLens',
  toggleInlayHints: 'turnlens.toggleInlayHints',
  toggleRouter: 'turnlens.toggleRouter',
  reloadServer: 'turnlens.reloadServer',
  restartServer: 'turnlens.restartServer',
  showOutput: 'turnlens.showOutput',
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];

/** Commands the server advertises (workspace/executeCommand). */
export const SERVER_COMMANDS = {
  classify: 'turnlens.classify',
  plan: 'turnlens.plan',
  reload: 'turnlens.reload',
} as const;

export const STATUS_NOTIFICATION = 'turnlens/status';
/** The server's custom request behind the session map (`{uri, budget?, html?, nonce?, vscode?}`). */
export const SESSION_MAP_REQUEST = 'turnlens/sessionMap';
export const SECTION = 'turnlens';
export const CLIENT_ID = 'turnlens';
export const CLIENT_NAME = 'TurnLens';

export interface Toggle {
  /** Setting key under `turnlens.`. */
  key: string;
  /** What the user reads: "TurnLens: code lenses off". */
  noun: string;
}

export const TOGGLES: Readonly<Record<string, Toggle>> = {
  [COMMANDS.toggleDiagnostics]: { key: 'diagnostics.enable', noun: 'diagnostics' },
  [COMMANDS.toggleCodeLens]: { key: 'codeLens.enable', noun: 'code lenses' },
  [COMMANDS.toggleInlayHints]: { key: 'inlayHints.enable', noun: 'inlay hints' },
  [COMMANDS.toggleRouter]: { key: 'router.enable', noun: 'router' },
};

export function toggleMessage(toggle: Toggle, enabled: boolean, target: 'workspace' | 'user'): string {
  return `TurnLens: ${toggle.noun} ${enabled ? 'on' : 'off'} (${target} setting turnlens.${toggle.key})`;
}

/**
 * Setting keys whose change needs a new server process (not just a settings re-pull): how to start
 * it, which documents it gets, the model back end and the model files (the server trusts those
 * only from initializationOptions).
 */
export const RESTART_KEYS: readonly string[] = [
  'server.command',
  'server.python',
  'documentSelector',
  'router.backend',
  'router.endpoint',
  'router.model',
  'router.apiKeyEnv',
  'models',
];
