import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stderrLevel, traceEnabled } from '../../src/pure/log';
import { parseClassification, parsePlan, parseRange, parseStatus } from '../../src/pure/types';

describe('parsers', () => {
  it('parseStatus keeps the contract fields and rejects junk', () => {
    assert.deepEqual(
      parseStatus({ uri: 'file:///a.md', version: 2, class: 'code', effort: 'medium', phase: 'implement', source: 'keyword', paused: false, units: 3, extra: 1 }),
      { uri: 'file:///a.md', version: 2, class: 'code', effort: 'medium', phase: 'implement', source: 'keyword', paused: false, units: 3 },
    );
    assert.equal(parseStatus(null), undefined);
    assert.equal(parseStatus({ class: 'x' }), undefined);
    const loose = parseStatus({ uri: 'u', class: 5, paused: 'yes' })!;
    assert.equal(loose.class, null);
    assert.equal(loose.paused, false);
    assert.equal(loose.version, 0);
  });

  it('parseClassification tolerates missing optional parts', () => {
    const c = parseClassification({ class: 'spec', max_ratio: 3, frozen: 'true', words: 7, lines: 1, scores: { spec: 5, code: 'x' } })!;
    assert.deepEqual(c.scores, { spec: 5 });
    assert.deepEqual(c.signals, []);
    assert.equal(c.route, null);
    assert.equal(c.verdict, null);
    assert.equal(parseClassification({ error: 'no' }), undefined);
    assert.equal(parseClassification([1]), undefined);
  });

  it('parsePlan and parseRange', () => {
    assert.equal(parsePlan({}), undefined);
    assert.equal(parsePlan({ verdict: 'FITS', plan: [null, {}] })!.plan.length, 1);
    assert.deepEqual(parseRange({ start: { line: 1, character: 2 }, end: { line: 3, character: 4 } }), {
      start: { line: 1, character: 2 },
      end: { line: 3, character: 4 },
    });
    assert.equal(parseRange({ start: { line: 1 } }), null);
  });
});

describe('server log lines', () => {
  it('takes the level from a Python logging line, else keeps the previous one', () => {
    assert.equal(stderrLevel('INFO:turnlens.lsp:started'), 'info');
    assert.equal(stderrLevel('2026-01-01 10:00:00,000 WARNING turnlens: bad setting'), 'warn');
    assert.equal(stderrLevel('ERROR turnlens boom'), 'error');
    assert.equal(stderrLevel('CRITICAL x'), 'error');
    assert.equal(stderrLevel('DEBUG x'), 'debug');
    assert.equal(stderrLevel('  File "x.py", line 3', 'error'), 'error');
    assert.equal(stderrLevel('plain line'), 'info');
    assert.equal(stderrLevel('x'.repeat(70) + ' ERROR late'), 'info', 'only the start of the line counts');
  });

  it('traceEnabled', () => {
    assert.equal(traceEnabled('off'), false);
    assert.equal(traceEnabled(undefined), false);
    assert.equal(traceEnabled('messages'), true);
    assert.equal(traceEnabled('verbose'), true);
  });
});
