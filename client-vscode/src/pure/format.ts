/**
 * Text shown to the user: the status bar item, the Classify result and the session plan.
 * Pure (no `vscode` import) so it is unit-tested with node's test runner.
 */
import type { Classification, LspRange, Route, SessionPlan, Signal, StatusPayload } from './types';

export interface StatusView {
  text: string;
  tooltip: string;
  /** true → warning background (the model classifier is paused). */
  warning: boolean;
}

/** One row of a quick pick; `line` (0-based document line) makes the row jump there. */
export interface DetailItem {
  label: string;
  description?: string;
  detail?: string;
  separator?: boolean;
  line?: number;
}

export const CLICK_HINT = 'Click to classify the whole document.';
export const PAUSED_HINT =
  'The model classifier is paused after repeated failures; the embedded rules labeler answers meanwhile. ' +
  'Run “TurnLens: Reload” to retry now.';

export function ratioText(maxRatio: number | null): string {
  return maxRatio === null ? '≤?:1' : `≤${maxRatio}:1`;
}

export function frozenText(frozen: string): string {
  switch (frozen) {
    case 'true':
      return 'frozen';
    case 'partial':
      return 'partly frozen';
    default:
      return 'compressible';
  }
}

/** `effort high (plan, classifier)`, `no route (short)`, or `no route`. */
export function routeText(route: Route | null): string {
  if (!route) return 'no route';
  if (route.effort) {
    const why = [route.phase, route.source].filter((part): part is string => !!part);
    return why.length ? `effort ${route.effort} (${why.join(', ')})` : `effort ${route.effort}`;
  }
  return route.source ? `no route (${route.source})` : 'no route';
}

export function statusView(status: StatusPayload | undefined): StatusView {
  if (!status) {
    return { text: '$(tag) TurnLens', tooltip: `TurnLens: waiting for the analysis.\n\n${CLICK_HINT}`, warning: false };
  }
  if (status.class === null) {
    return {
      text: '$(tag) TurnLens: —',
      tooltip:
        'TurnLens: this document is not analysed (excluded, disabled, or over the size limit).\n\n' + CLICK_HINT,
      warning: status.paused,
    };
  }
  const text = status.effort ? `$(tag) ${status.class} · ${status.effort}` : `$(tag) ${status.class}`;
  const lines: string[] = [];
  lines.push(
    status.units > 1
      ? `TurnLens — turn ${status.units} of ${status.units} (the turn being written)`
      : 'TurnLens — this document',
  );
  lines.push(`class: ${status.class}`);
  const route: Route = { phase: status.phase, effort: status.effort, source: status.source, label: null, reason: null };
  lines.push(routeText(route));
  if (status.paused) lines.push('', `⚠ ${PAUSED_HINT}`);
  lines.push('', CLICK_HINT);
  return { text, tooltip: lines.join('\n'), warning: status.paused };
}

/** `decision · ≤5:1 · frozen · SKIP · effort high (plan, classifier)` */
export function classificationHeadline(c: Classification): string {
  const parts = [c.class, ratioText(c.max_ratio), frozenText(c.frozen)];
  if (c.verdict) parts.push(c.verdict);
  parts.push(routeText(c.route));
  return parts.join(' · ');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Document line (0-based) of a fired rule, when the server gave a line and a range. */
export function signalDocumentLine(signal: Signal, range: LspRange | null): number | undefined {
  if (signal.line === null || signal.line < 1) return undefined;
  return (range ? range.start.line : 0) + signal.line - 1;
}

export function scoresText(scores: Record<string, number>): string {
  const entries = Object.entries(scores);
  if (!entries.length) return '';
  return entries.map(([name, score]) => `${name} ${score}`).join(' · ');
}

export function classificationItems(c: Classification): DetailItem[] {
  const items: DetailItem[] = [];
  items.push({ label: `$(tag) ${c.class}`, description: 'task class', detail: scoresText(c.scores) || undefined });
  items.push({ label: `$(fold) ${ratioText(c.max_ratio)}`, description: 'maximum compression ratio' });
  items.push({ label: `$(lock) ${frozenText(c.frozen)}`, description: `frozen: ${c.frozen}` });
  if (c.verdict) items.push({ label: `$(check) ${c.verdict}`, description: 'compression verdict' });
  const route = c.route;
  const routeParts: string[] = [];
  if (route?.phase) routeParts.push(`phase ${route.phase}`);
  if (route?.source) routeParts.push(`source ${route.source}`);
  if (route?.label) routeParts.push(`label ${route.label}`);
  items.push({
    label: `$(dashboard) ${route?.effort ? `effort ${route.effort}` : 'no route'}`,
    description: routeParts.join(' · ') || 'reasoning effort',
    detail: route?.reason ?? undefined,
  });
  if (c.words !== null || c.lines !== null) {
    const size = [c.words !== null ? plural(c.words, 'word') : '', c.lines !== null ? plural(c.lines, 'line') : '']
      .filter(Boolean)
      .join(' · ');
    items.push({ label: `$(symbol-text) ${size}`, description: 'size' });
  }
  items.push({ label: `Rules that fired (${c.signals.length})`, separator: true });
  if (!c.signals.length) {
    items.push({ label: '$(info) no rule fired', description: 'the class comes from the length fallback' });
  }
  for (const signal of c.signals) {
    const line = signalDocumentLine(signal, c.range);
    const where = line !== undefined ? ` · line ${line + 1}` : '';
    const weight = signal.weight >= 0 ? `+${signal.weight}` : `${signal.weight}`;
    items.push({
      label: `$(symbol-ruler) ${signal.rule}`,
      description: `${signal.class} ${weight}${where}`,
      detail: signal.text || undefined,
      line,
    });
  }
  return items;
}

/** `FITS — 156 of 500 tokens` / `OVERFLOW — 620 of 500 tokens (120 over)` */
export function planHeadline(plan: SessionPlan): string {
  const budget = plan.budget;
  if (budget === null || budget <= 0) {
    return `${plan.verdict} — ${plan.total_plan_tokens} planned tokens (${plan.total_orig_tokens} before)`;
  }
  const over = plan.total_plan_tokens - budget;
  const extra = over > 0 ? ` (${over} over)` : '';
  return `${plan.verdict} — ${plan.total_plan_tokens} of ${budget} tokens${extra}`;
}

export function planItems(plan: SessionPlan): DetailItem[] {
  const items: DetailItem[] = [];
  const icon = plan.verdict === 'FITS' ? '$(pass)' : '$(error)';
  items.push({
    label: `${icon} ${plan.verdict}`,
    description: plan.message,
    detail:
      `${plural(plan.n_turns, 'turn')} · words ${plan.total_orig_words} → ${plan.total_plan_words} · ` +
      `tokens ${plan.total_orig_tokens} → ${plan.total_plan_tokens}` +
      (plan.budget !== null ? ` · budget ${plan.budget}` : ''),
  });
  items.push({ label: 'Turns', separator: true });
  for (const row of plan.plan) {
    items.push({
      label: `Turn ${row.turn} · ${row.class}`,
      description: `${frozenText(row.frozen)} · ${row.applied_ratio}:1`,
      detail: `${plural(row.words_orig, 'word')} → ${plural(row.words_plan, 'word')}`,
    });
  }
  return items;
}

/** A plain-text rendering (for the output channel and for copying). */
export function classificationText(c: Classification): string {
  return classificationItems(c)
    .map((item) => {
      if (item.separator) return `-- ${item.label} --`;
      const label = item.label.replace(/^\$\([a-z-]+\) /, '');
      return [label, item.description, item.detail].filter(Boolean).join(' — ');
    })
    .join('\n');
}
