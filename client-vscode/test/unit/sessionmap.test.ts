import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasStrictCsp, newNonce, parseMapResponse, parsePageMessage, unitRange } from '../../src/pure/sessionmap';

const range = { start: { line: 4, character: 10 }, end: { line: 4, character: 40 } };
const page = (csp: string, body = ''): string =>
  `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${csp}"></head><body>${body}</body></html>`;

describe('session map contract', () => {
  it('parses the server answer, keeping the raw map for the page', () => {
    const map = { uri: 'file:///s.jsonl', version: 3, units: [{ i: 0, line: 1, range }, { i: 2, line: 5 }, 'junk'], stats: { units: 2 } };
    const parsed = parseMapResponse({ map, html: '<html>' })!;
    assert.equal(parsed.html, '<html>');
    assert.equal(parsed.map.version, 3);
    assert.deepEqual(parsed.map.units, [{ i: 0, line: 1, range }, { i: 2, line: 5, range: null }]);
    assert.equal(parsed.map.raw, map);
    assert.equal(parseMapResponse({ map })?.html, null);
    assert.equal(parseMapResponse({ map: { units: [] } }), undefined);
    assert.equal(parseMapResponse(null), undefined);
  });

  it('finds a unit by its index, not by its position in the list', () => {
    const parsed = parseMapResponse({ map: { uri: 'u', version: 1, units: [{ i: 3, line: 1, range }] } })!;
    assert.deepEqual(unitRange(parsed.map, 3), range);
    assert.equal(unitRange(parsed.map, 0), null);
  });

  it('accepts only the messages the page sends', () => {
    assert.deepEqual(parsePageMessage({ type: 'reveal', index: 2, line: 5, start: 1, end: 9 }), { type: 'reveal', index: 2 });
    assert.deepEqual(parsePageMessage({ type: 'ready' }), { type: 'ready' });
    assert.equal(parsePageMessage({ type: 'reveal', index: '2' }), undefined);
    assert.equal(parsePageMessage({ type: 'reveal', index: 1.5 }), undefined);
    assert.equal(parsePageMessage({ type: 'run', command: 'x' }), undefined);
    assert.equal(parsePageMessage('reveal'), undefined);
  });

  it('makes nonces the server accepts, a new one each time', () => {
    const a = newNonce();
    assert.match(a, /^[A-Za-z0-9_-]{8,128}$/);
    assert.notEqual(a, newNonce());
  });

  it('shows a page only under a strict content security policy with its nonce', () => {
    const strict = "default-src 'none'; style-src 'nonce-abcdefgh'; script-src 'nonce-abcdefgh'; img-src data:;";
    assert.ok(hasStrictCsp(page(strict), 'abcdefgh'));
    assert.ok(!hasStrictCsp(page(strict), 'otherone'));
    assert.ok(!hasStrictCsp(page(strict.replace("default-src 'none'", 'default-src *')), 'abcdefgh'));
    assert.ok(!hasStrictCsp(page(strict.replace("script-src 'nonce-abcdefgh'", "script-src 'nonce-abcdefgh' 'unsafe-inline'")), 'abcdefgh'));
    assert.ok(!hasStrictCsp(page(`${strict} style-src https://cdn.example`), 'abcdefgh'));
    assert.ok(!hasStrictCsp(page(strict, '<script src="https://cdn.example/x.js"></script>'), 'abcdefgh'));
    assert.ok(!hasStrictCsp('<html><body>no policy</body></html>', 'abcdefgh'));
  });
});
