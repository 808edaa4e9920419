// A stand-in for the `vscode` module, just enough to load the bundled extension and run its
// activate() outside VS Code. It records registered commands and the messages shown.
'use strict';

const recorded = { commands: new Map(), messages: [], statusBarItems: [], contexts: new Map() };
const disposable = () => ({ dispose() {} });
const event = () => () => disposable();

class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (listener) => {
      this.listeners.add(listener);
      return { dispose: () => this.listeners.delete(listener) };
    };
  }
  fire(value) {
    for (const listener of this.listeners) listener(value);
  }
  dispose() {
    this.listeners.clear();
  }
}

class Disposable {
  constructor(fn) {
    this.fn = fn;
  }
  static from(...items) {
    return new Disposable(() => items.forEach((item) => item.dispose()));
  }
  dispose() {
    if (this.fn) this.fn();
  }
}

class Uri {
  constructor(scheme, path) {
    this.scheme = scheme;
    this.path = path;
    this.fsPath = path;
  }
  static parse(value) {
    const match = /^([a-z-]+):\/\/(.*)$/.exec(value);
    return match ? new Uri(match[1], match[2]) : new Uri('file', value);
  }
  static file(path) {
    return new Uri('file', path);
  }
  toString() {
    return `${this.scheme}://${this.path}`;
  }
}

const LogLevel = { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 };

function logChannel(name) {
  const lines = [];
  const write = (line) => lines.push(String(line));
  return {
    name,
    lines,
    logLevel: LogLevel.Info,
    onDidChangeLogLevel: event(),
    trace: write,
    debug: write,
    info: write,
    warn: write,
    error: write,
    append: write,
    appendLine: write,
    replace() {},
    clear() {},
    show() {},
    hide() {},
    dispose() {},
  };
}

/** Settings the fake answers; anything else gets the caller's default. */
const settings = {
  // a missing interpreter: activation then stops at the import check instead of spawning anything
  'server.python': '/nonexistent/turnlens-test-python',
};

function configuration() {
  return {
    get: (key, fallback) => (key in settings ? settings[key] : fallback),
    has: (key) => key in settings,
    inspect: (key) => ({ key, defaultValue: undefined, globalValue: settings[key] }),
    update: async (key, value) => {
      settings[key] = value;
    },
  };
}

const known = {
  recorded,
  settings,
  EventEmitter,
  Disposable,
  Uri,
  LogLevel,
  StatusBarAlignment: { Left: 1, Right: 2 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  QuickPickItemKind: { Separator: -1, Default: 0 },
  ThemeColor: class ThemeColor {
    constructor(id) {
      this.id = id;
    }
  },
  window: {
    activeTextEditor: undefined,
    visibleTextEditors: [],
    createOutputChannel: (name) => logChannel(name),
    createStatusBarItem: (id) => {
      const item = { id, text: '', show() { item.visible = true; }, hide() { item.visible = false; }, dispose() {} };
      recorded.statusBarItems.push(item);
      return item;
    },
    onDidChangeActiveTextEditor: event(),
    onDidChangeVisibleTextEditors: event(),
    showErrorMessage: async (message) => void recorded.messages.push(['error', message]),
    showWarningMessage: async (message) => void recorded.messages.push(['warning', message]),
    showInformationMessage: async (message) => void recorded.messages.push(['info', message]),
    setStatusBarMessage: (message) => (recorded.messages.push(['status', message]), disposable()),
  },
  workspace: {
    isTrusted: true,
    workspaceFolders: undefined,
    textDocuments: [],
    getConfiguration: () => configuration(),
    onDidChangeConfiguration: event(),
    onDidCloseTextDocument: event(),
    onDidOpenTextDocument: event(),
    onDidGrantWorkspaceTrust: event(),
  },
  commands: {
    registerCommand: (id, handler) => {
      if (recorded.commands.has(id)) throw new Error(`command '${id}' already exists`);
      recorded.commands.set(id, handler);
      return { dispose: () => recorded.commands.delete(id) };
    },
    executeCommand: async (id, ...args) => {
      if (id === 'setContext') recorded.contexts.set(args[0], args[1]);
    },
  },
  extensions: { getExtension: () => undefined },
  languages: { match: () => 0 },
  env: { clipboard: { writeText: async () => undefined } },
};

// Anything else (classes vscode-languageclient extends at load time, enums): a harmless class.
const generic = new Map();
module.exports = new Proxy(known, {
  get(target, name) {
    if (name in target) return target[name];
    if (typeof name !== 'string') return undefined;
    if (!generic.has(name)) generic.set(name, class {});
    return generic.get(name);
  },
});
