import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SELECTOR, isGlob, normalizeGlob, selectorEntries, toDocumentFilters } from '../../src/pure/selector';

describe('documentSelector', () => {
  it('maps language ids and globs to filters on file and untitled documents', () => {
    assert.deepEqual(toDocumentFilters(['markdown', '**/*.prompt']), [
      { scheme: 'file', language: 'markdown' },
      { scheme: 'untitled', language: 'markdown' },
      { scheme: 'file', pattern: '**/*.prompt' },
    ]);
  });

  it('makes a bare file name or relative glob match anywhere', () => {
    assert.equal(normalizeGlob('CLAUDE.md'), '**/CLAUDE.md');
    assert.equal(normalizeGlob('./prompts/*.txt'), '**/prompts/*.txt');
    assert.equal(normalizeGlob('**/x.md'), '**/x.md');
    assert.equal(normalizeGlob('/abs/*.md'), '/abs/*.md');
    assert.equal(normalizeGlob('C:\\p\\*.md'), 'C:/p/*.md');
  });

  it('tells language ids from globs', () => {
    assert.equal(isGlob('markdown'), false);
    assert.equal(isGlob('plaintext'), false);
    assert.equal(isGlob('*.prompt'), true);
    assert.equal(isGlob('AGENTS.md'), true);
  });

  it('uses the default for a missing, empty or broken setting, and drops junk entries', () => {
    assert.deepEqual(selectorEntries(undefined), [...DEFAULT_SELECTOR]);
    assert.deepEqual(selectorEntries([]), [...DEFAULT_SELECTOR]);
    assert.deepEqual(selectorEntries('markdown'), [...DEFAULT_SELECTOR]);
    assert.deepEqual(selectorEntries(['markdown', 3, ' ', 'markdown', ' plaintext ']), ['markdown', 'plaintext']);
  });

  it('covers the prompt files of the issue by default', () => {
    const patterns = toDocumentFilters(undefined).map((f) => f.pattern ?? f.language);
    for (const wanted of ['markdown', 'plaintext', '**/*.prompt.md', '**/*.prompt', '**/*.chat.md', '**/CLAUDE.md', '**/AGENTS.md']) {
      assert.ok(patterns.includes(wanted), wanted);
    }
  });
});
