/**
 * The language client's middleware:
 *  - lens clicks (`turnlens.classify` / `turnlens.plan` from code lenses) show their result;
 *  - answers to workspace/configuration follow the trust rules (settings.ts → pure/trust.ts);
 *  - the code lens / inlay hint / diagnostics toggles take effect at once on the client side too.
 */
import * as vscode from 'vscode';
import { Middleware, ResponseError } from 'vscode-languageclient/node';
import { SERVER_COMMANDS } from './pure/ids';

export interface MiddlewareDeps {
  showClassification(result: unknown, arg: unknown): void;
  showPlan(result: unknown): void;
  sanitize(section: string | null | undefined, value: unknown, scopeUri?: string): unknown;
  enabled(key: string, resource: vscode.Uri): boolean;
}

export function createMiddleware(deps: MiddlewareDeps): Middleware {
  return {
    executeCommand: async (command, args, next) => {
      const result: unknown = await next(command, args);
      if (command === SERVER_COMMANDS.classify) deps.showClassification(result, args[0]);
      else if (command === SERVER_COMMANDS.plan) deps.showPlan(result);
      return result;
    },
    workspace: {
      configuration: async (params, token, next) => {
        const result = await next(params, token);
        if (result instanceof ResponseError || !Array.isArray(result)) return result;
        return params.items.map((item, index) =>
          deps.sanitize(item.section, result[index], item.scopeUri ?? undefined),
        );
      },
    },
    provideCodeLenses: (document, token, next) =>
      deps.enabled('codeLens.enable', document.uri) ? next(document, token) : [],
    provideInlayHints: (document, range, token, next) =>
      deps.enabled('inlayHints.enable', document.uri) ? next(document, range, token) : [],
    handleDiagnostics: (uri, diagnostics, next) => {
      next(uri, deps.enabled('diagnostics.enable', uri) ? diagnostics : []);
    },
  };
}
