import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classificationHeadline,
  classificationItems,
  classificationText,
  frozenText,
  planHeadline,
  planItems,
  ratioText,
  routeText,
  signalDocumentLine,
  statusView,
} from '../../src/pure/format';
import { parseClassification, parsePlan, StatusPayload } from '../../src/pure/types';

const status = (over: Partial<StatusPayload> = {}): StatusPayload => ({
  uri: 'file:///w/session.md',
  version: 3,
  class: 'decision',
  effort: 'high',
  phase: 'plan',
  source: 'classifier',
  paused: false,
  units: 1,
  ...over,
});

describe('statusView', () => {
  it('shows class · effort with a tag icon', () => {
    const view = statusView(status());
    assert.equal(view.text, '$(tag) decision · high');
    assert.equal(view.warning, false);
    assert.match(view.tooltip, /class: decision/);
    assert.match(view.tooltip, /effort high \(plan, classifier\)/);
    assert.match(view.tooltip, /Click to classify/);
  });

  it('names the last turn of a multi-turn document', () => {
    assert.match(statusView(status({ units: 5 })).tooltip, /turn 5 of 5/);
  });

  it('shows the class alone when there is no route, with the reason', () => {
    const view = statusView(status({ class: 'chitchat', effort: null, phase: null, source: 'short' }));
    assert.equal(view.text, '$(tag) chitchat');
    assert.match(view.tooltip, /no route \(short\)/);
  });

  it('warns when the classifier is paused', () => {
    const view = statusView(status({ paused: true, source: 'fallback' }));
    assert.equal(view.warning, true);
    assert.match(view.tooltip, /paused/);
    assert.match(view.tooltip, /TurnLens: Reload/);
  });

  it('has a placeholder before the first analysis and for unanalysed documents', () => {
    assert.equal(statusView(undefined).text, '$(tag) TurnLens');
    const excluded = statusView(status({ class: null, effort: null, phase: null, source: null }));
    assert.equal(excluded.text, '$(tag) TurnLens: —');
    assert.match(excluded.tooltip, /not analysed/);
  });
});

const classification = parseClassification({
  class: 'decision',
  max_ratio: 5,
  frozen: 'true',
  words: 4,
  lines: 1,
  scores: { decision: 5, spec: 0, code: 0, review: 0, context: 0, chitchat: 3 },
  verdict: 'SKIP',
  signals: [
    { rule: 'decision.approve', class: 'decision', weight: 3, line: 1, text: 'APPROVED — ship it' },
    { rule: 'chitchat.short', class: 'chitchat', weight: 3, line: null, text: '' },
  ],
  route: { phase: 'plan', effort: 'high', label: 'design', source: 'classifier', reason: 'labelled design', signals: [] },
  range: { start: { line: 10, character: 0 }, end: { line: 11, character: 0 } },
})!;

describe('classification', () => {
  it('parses the server JSON', () => {
    assert.ok(classification);
    assert.equal(classification.signals.length, 2);
    assert.equal(classification.route?.effort, 'high');
  });

  it('has a one-line headline with class, ratio, frozen, verdict and route', () => {
    assert.equal(classificationHeadline(classification), 'decision · ≤5:1 · frozen · SKIP · effort high (plan, classifier)');
  });

  it('lists the fields and the fired rules, rules pointing at document lines', () => {
    const items = classificationItems(classification);
    const labels = items.map((item) => item.label);
    assert.ok(labels.includes('$(tag) decision'));
    assert.ok(labels.includes('$(fold) ≤5:1'));
    assert.ok(labels.includes('$(lock) frozen'));
    assert.ok(labels.includes('$(check) SKIP'));
    assert.ok(labels.includes('$(dashboard) effort high'));
    const route = items.find((item) => item.label === '$(dashboard) effort high')!;
    assert.equal(route.description, 'phase plan · source classifier · label design');
    assert.equal(route.detail, 'labelled design');
    assert.ok(items.some((item) => item.separator && item.label === 'Rules that fired (2)'));
    const rule = items.find((item) => item.label === '$(symbol-ruler) decision.approve')!;
    assert.equal(rule.line, 10, 'line 1 of a unit starting at document line 10 (0-based)');
    assert.equal(rule.description, 'decision +3 · line 11');
    assert.equal(rule.detail, 'APPROVED — ship it');
    assert.match(items[0].detail ?? '', /decision 5 · spec 0/);
  });

  it('says so when no rule fired', () => {
    const c = parseClassification({ class: 'context', max_ratio: 25, frozen: 'false', scores: {}, signals: [] })!;
    assert.ok(classificationItems(c).some((item) => item.label === '$(info) no rule fired'));
    assert.equal(classificationHeadline(c), 'context · ≤25:1 · compressible · no route');
  });

  it('renders as plain text for the output channel', () => {
    const text = classificationText(classification);
    assert.match(text, /^decision — task class/);
    assert.match(text, /-- Rules that fired \(2\) --/);
  });

  it('small formatters', () => {
    assert.equal(ratioText(10), '≤10:1');
    assert.equal(ratioText(null), '≤?:1');
    assert.equal(frozenText('partial'), 'partly frozen');
    assert.equal(frozenText('false'), 'compressible');
    assert.equal(routeText(null), 'no route');
    assert.equal(routeText({ phase: null, effort: 'low', label: null, source: null, reason: null }), 'effort low');
    assert.equal(signalDocumentLine({ rule: 'r', class: 'c', weight: 1, line: 3, text: '' }, null), 2);
    assert.equal(signalDocumentLine({ rule: 'r', class: 'c', weight: 1, line: null, text: '' }, null), undefined);
  });
});

describe('session plan', () => {
  const plan = parsePlan({
    verdict: 'OVERFLOW',
    n_turns: 2,
    total_orig_words: 300,
    total_plan_words: 120,
    total_orig_tokens: 390,
    total_plan_tokens: 156,
    budget: 100,
    message: 'OVERFLOW: 156 > 100 (56 over)',
    plan: [
      { turn: 1, class: 'decision', frozen: 'true', words_orig: 20, applied_ratio: 1, words_plan: 20 },
      { turn: 2, class: 'context', frozen: 'false', words_orig: 280, applied_ratio: 25, words_plan: 11 },
    ],
  })!;

  it('headline and one row per turn', () => {
    assert.equal(planHeadline(plan), 'OVERFLOW — 156 of 100 tokens (56 over)');
    const items = planItems(plan);
    assert.equal(items[0].label, '$(error) OVERFLOW');
    assert.match(items[0].detail ?? '', /2 turns · words 300 → 120 · tokens 390 → 156 · budget 100/);
    assert.deepEqual(
      items.filter((item) => item.label.startsWith('Turn ')).map((item) => [item.label, item.description, item.detail]),
      [
        ['Turn 1 · decision', 'frozen · 1:1', '20 words → 20 words'],
        ['Turn 2 · context', 'compressible · 25:1', '280 words → 11 words'],
      ],
    );
  });

  it('without a budget', () => {
    assert.equal(planHeadline({ ...plan, verdict: 'FITS', budget: 0 }), 'FITS — 156 planned tokens (390 before)');
    assert.equal(planItems({ ...plan, verdict: 'FITS' })[0].label, '$(pass) FITS');
  });
});
