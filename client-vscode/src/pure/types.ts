/**
 * Shapes of what the TurnLens server sends (docs/architecture.md, "Contracts between the parts"),
 * with defensive parsers: the server is another process, so nothing it sends is trusted blindly.
 * This module does not import `vscode`.
 */

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

/** The `turnlens/status` notification. */
export interface StatusPayload {
  uri: string;
  version: number;
  class: string | null;
  effort: string | null;
  phase: string | null;
  source: string | null;
  paused: boolean;
  units: number;
}

export interface Signal {
  rule: string;
  class: string;
  weight: number;
  line: number | null;
  text: string;
}

export interface Route {
  phase: string | null;
  effort: string | null;
  label: string | null;
  source: string | null;
  reason: string | null;
}

/** The result of the server command `turnlens.classify` (SPEC §2 JSON plus extras). */
export interface Classification {
  class: string;
  max_ratio: number | null;
  frozen: string;
  words: number | null;
  lines: number | null;
  scores: Record<string, number>;
  verdict: string | null;
  signals: Signal[];
  route: Route | null;
  range: LspRange | null;
}

export interface PlanRow {
  turn: number;
  class: string;
  frozen: string;
  words_orig: number;
  applied_ratio: number;
  words_plan: number;
}

/** The result of the server command `turnlens.plan` (SPEC §4 JSON). */
export interface SessionPlan {
  verdict: string;
  n_turns: number;
  total_orig_words: number;
  total_plan_words: number;
  total_orig_tokens: number;
  total_plan_tokens: number;
  budget: number | null;
  message: string;
  plan: PlanRow[];
}

type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function position(value: unknown): LspPosition | null {
  if (!isObject(value)) return null;
  const line = num(value.line);
  const character = num(value.character);
  return line === null || character === null ? null : { line, character };
}

/** `frozen` is the string "true" / "partial" / "false"; a boolean is accepted too. */
function frozenValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === true ? 'true' : 'false';
}

export function parseRange(value: unknown): LspRange | null {
  if (!isObject(value)) return null;
  const start = position(value.start);
  const end = position(value.end);
  return start && end ? { start, end } : null;
}

export function parseStatus(value: unknown): StatusPayload | undefined {
  if (!isObject(value) || typeof value.uri !== 'string') return undefined;
  return {
    uri: value.uri,
    version: num(value.version) ?? 0,
    class: str(value.class),
    effort: str(value.effort),
    phase: str(value.phase),
    source: str(value.source),
    paused: value.paused === true,
    units: num(value.units) ?? 0,
  };
}

function parseSignal(value: unknown): Signal | null {
  if (!isObject(value)) return null;
  const rule = str(value.rule) ?? str(value.id);
  if (rule === null) return null;
  return {
    rule,
    class: str(value.class) ?? str(value.category) ?? '',
    weight: num(value.weight) ?? 0,
    line: num(value.line),
    text: str(value.text) ?? '',
  };
}

export function parseRoute(value: unknown): Route | null {
  if (!isObject(value)) return null;
  return {
    phase: str(value.phase),
    effort: str(value.effort),
    label: str(value.label),
    source: str(value.source),
    reason: str(value.reason),
  };
}

export function parseClassification(value: unknown): Classification | undefined {
  if (!isObject(value) || typeof value.class !== 'string') return undefined;
  const scores: Record<string, number> = {};
  if (isObject(value.scores)) {
    for (const [name, score] of Object.entries(value.scores)) {
      const n = num(score);
      if (n !== null) scores[name] = n;
    }
  }
  const signals = Array.isArray(value.signals)
    ? value.signals.map(parseSignal).filter((s): s is Signal => s !== null)
    : [];
  return {
    class: value.class,
    max_ratio: num(value.max_ratio),
    frozen: frozenValue(value.frozen),
    words: num(value.words),
    lines: num(value.lines),
    scores,
    verdict: str(value.verdict),
    signals,
    route: parseRoute(value.route),
    range: parseRange(value.range),
  };
}

function parsePlanRow(value: unknown): PlanRow | null {
  if (!isObject(value)) return null;
  return {
    turn: num(value.turn) ?? 0,
    class: str(value.class) ?? '?',
    frozen: frozenValue(value.frozen),
    words_orig: num(value.words_orig) ?? 0,
    applied_ratio: num(value.applied_ratio) ?? 1,
    words_plan: num(value.words_plan) ?? 0,
  };
}

export function parsePlan(value: unknown): SessionPlan | undefined {
  if (!isObject(value) || typeof value.verdict !== 'string') return undefined;
  const rows = Array.isArray(value.plan)
    ? value.plan.map(parsePlanRow).filter((r): r is PlanRow => r !== null)
    : [];
  return {
    verdict: value.verdict,
    n_turns: num(value.n_turns) ?? rows.length,
    total_orig_words: num(value.total_orig_words) ?? 0,
    total_plan_words: num(value.total_plan_words) ?? 0,
    total_orig_tokens: num(value.total_orig_tokens) ?? 0,
    total_plan_tokens: num(value.total_plan_tokens) ?? 0,
    budget: num(value.budget),
    message: str(value.message) ?? '',
    plan: rows,
  };
}
