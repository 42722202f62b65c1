import RE2 from 're2';
import { describe, expect, it } from 'vitest';
import { buildCorpus } from '../../../test/pii-corpus/build-corpus.js';
import { normalisedView } from './normalise.js';
import { maxMatchLength, prefixLanguage, relaxRepetitions } from './regex-prefix.js';
import { RECOGNIZERS } from './recognizers/index.js';

const full = (src: string): RE2 => new RE2(`^(?:${src})$`, 'u');

describe('prefixLanguage', () => {
  it('matches exactly the prefixes of a small pattern', () => {
    const pre = full(prefixLanguage('ab(?:cd|e)f{1,2}\\b'));
    for (const s of ['', 'a', 'ab', 'abc', 'abcd', 'abe', 'abef', 'abcdff']) expect(pre.test(s)).toBe(true);
    for (const s of ['b', 'ac', 'abd', 'abcdfff', 'abce']) expect(pre.test(s)).toBe(false);
  });

  it('relaxed mode is a superset, and maxMatchLength bounds the pattern', () => {
    expect(full(prefixLanguage('x\\d{2,3}', true)).test('x12345')).toBe(true);
    expect(full(relaxRepetitions('x\\d{2,3}')).test('x12345')).toBe(true);
    expect(full(relaxRepetitions('x\\d{2,3}')).test('x1')).toBe(false);
    expect(maxMatchLength('x\\d{2,3}(?:ab|c)?')).toBe(6);
    expect(maxMatchLength('a+')).toBe(Infinity);
  });

  it('accepts every prefix of every entity value in the corpus (the stream hold-back relies on it)', () => {
    const pres = RECOGNIZERS.map((r) => full(`${prefixLanguage(r.pattern)}${r.growth ? `|${r.growth}` : ''}`));
    let checked = 0;
    for (const s of buildCorpus()) {
      for (const span of s.spans) {
        // An encoded value is held back by the scan of its normalised view, which is what the patterns read.
        const written = s.text.slice(span.start, span.end);
        const value = normalisedView(written)?.text ?? written;
        for (let n = 1; n <= value.length; n++) {
          const p = value.slice(0, n);
          expect(pres.some((re) => re.test(p)), `${span.entity} prefix ${JSON.stringify(p)}`).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it('rejects syntax it does not understand at start-up', () => {
    expect(() => prefixLanguage('(?=x)')).toThrow();
    expect(() => prefixLanguage('[abc')).toThrow();
  });
});
