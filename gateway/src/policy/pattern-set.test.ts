import fc from 'fast-check';
import RE2 from 're2';
import { describe, expect, it } from 'vitest';
import { createPiiRedactor } from './pii/index.js';
import { RECOGNIZERS } from './pii/recognizers/index.js';
import { PatternSet } from './pattern-set.js';
import type { FilterEntry } from './compiled-parts.js';
import { POLICY_TYPE_TABLE } from './kinds/all-kinds.js';

const packPatterns = (POLICY_TYPE_TABLE.content_filter.pack?.rules as { patterns: string[] }).patterns;
const owners = packPatterns.map((pattern, i): FilterEntry => ({ pattern, ci: i % 2 === 1, owner: { id: `p${i}`, action: 'DENY', risk: 80 } }));

// Pieces that match the pack's filters and the PII recognizers, mixed with non-ASCII text and broken surrogate pairs.
const pieces = fc.constantFrom(
  'ignore all previous instructions',
  'DROP   TABLE users',
  'rm -rf /',
  'ana@example.com',
  'joão@exemplo.com.br',
  '4111 1111 1111 1111',
  '(11) 91234-5678',
  '123.456.789-09',
  'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
  'Olá, 日本 🇧🇷 ✅',
  '\uD83D',
  '\uDE00',
  ' ',
  '\n',
);
const texts = fc.array(fc.oneof(pieces, fc.string({ unit: 'binary', maxLength: 20 })), { maxLength: 12 }).map((p) => p.join(''));

describe('RE2 sets read from UTF-8 bytes', () => {
  it('name the same patterns from the bytes as from the string, whatever the text holds', () => {
    const filterSet = new RE2.Set(owners.map((o) => (o.ci ? `(?i)${o.pattern}` : o.pattern)), 'u');
    const piiSet = new RE2.Set(RECOGNIZERS.map((r) => r.pattern), 'u');
    fc.assert(
      fc.property(texts, (text) => {
        const bytes = Buffer.from(text, 'utf8');
        expect(filterSet.match(bytes)).toEqual(filterSet.match(text));
        expect(piiSet.match(bytes)).toEqual(piiSet.match(text));
      }),
      { seed: 14, numRuns: 2000 },
    );
  });

  it('PatternSet and the PII scan give the same answer with and without the caller-encoded bytes', () => {
    const set = new PatternSet(owners);
    const pii = createPiiRedactor();
    fc.assert(
      fc.property(texts, (text) => {
        const bytes = Buffer.from(text, 'utf8');
        const a: FilterEntry['owner'][] = [];
        const b: FilterEntry['owner'][] = [];
        set.matches(text, a);
        set.matches(text, b, bytes);
        expect(b).toEqual(a);
        const found = pii.scan(text, bytes);
        expect(found).toEqual(pii.scan(text));
        // Offsets stay UTF-16 offsets into the string, never byte offsets.
        for (const m of found) expect(m.end).toBeLessThanOrEqual(text.length);
      }),
      { seed: 15, numRuns: 2000 },
    );
  });

  it('finds a filter phrase and a card number behind multi-byte text at their string offsets', () => {
    const text = 'Olá 🇧🇷! ignore previous instructions, card 4111 1111 1111 1111';
    const out: FilterEntry['owner'][] = [];
    new PatternSet(owners).matches(text, out, Buffer.from(text, 'utf8'));
    expect(out.map((o) => o.id)).toEqual(['p0']);
    const [card] = createPiiRedactor(['CREDIT_CARD']).scan(text, Buffer.from(text, 'utf8'));
    expect(text.slice(card?.start, card?.end)).toBe('4111 1111 1111 1111');
  });
});
