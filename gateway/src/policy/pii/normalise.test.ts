import { describe, expect, it } from 'vitest';
import { createPrng } from '../../../test/pii-corpus/prng.js';
import { mayNormalise, normaliseInto, normalisedView } from './normalise.js';
import { OffsetMap } from './offset-map.js';

const isAscii = (s: string): boolean => Buffer.byteLength(s) === s.length;

describe('mayNormalise (the pre-check that keeps plain text on the fast path)', () => {
  it('says no for plain text, percent signs and ampersands that start no escape, and already normalised accents', () => {
    for (const text of ['Hello, world: 50% off for R&D and Q&A.', 'a & b; 100%; &amp without its semicolon', 'O cliente João pediu atualização — “ok”, 20€ 🙂']) {
      expect(mayNormalise(text, isAscii(text)), text).toBe(false);
    }
  });

  it('says yes for escapes, references and characters NFKC rewrites, and in a stream for an escape cut at the end', () => {
    for (const text of ['alice%40example.com', 'alice&#64;example.com', 'alice&#64example.com', 'bob&commat;example.com', 'ａｌｉｃｅ', 'wait…', 'jose\u0301', 'a\u00a0b']) {
      expect(mayNormalise(text, isAscii(text)), text).toBe(true);
    }
    for (const text of ['alice%', 'alice%4', 'alice&', 'bob&comm']) {
      expect(mayNormalise(text, true, true), text).toBe(true);
      expect(mayNormalise(text, true), text).toBe(false);
    }
  });
});

describe('normalisedView', () => {
  it('decodes one layer and maps every view offset back to the original span', () => {
    const text = 'a&#64;b ｃ%2Ed&amp;e\u0301!';
    const view = normalisedView(text)!;
    expect(view.text).toBe('a@b c.d&é!');
    const span = (s: number, e: number) => text.slice(view.map.startOf(s), view.map.endOf(e));
    expect(span(0, 3)).toBe('a&#64;b');
    expect(span(1, 2)).toBe('&#64;');
    expect(span(4, 7)).toBe('ｃ%2Ed');
    expect(span(8, 9)).toBe('e\u0301');
    expect(span(0, view.text.length)).toBe(text);
    expect(normalisedView('nothing to rewrite, 50% & more')).toBeNull();
    // One layer only: an escaped escape stays an escape.
    expect(normalisedView('%2540 &amp;#64;')!.text).toBe('%40 &#64;');
  });

  it('builds the same view when the text arrives in pieces (as a stream builds it)', () => {
    const rng = createPrng(17);
    const atoms = ['a', '%', '40', '%4', '0', '&', '#', '64', ';', 'commat', '&#x4', 'ｅ', 'e', '\u0301', '\u0327', '🙂', '%C3', '%A9', ' '];
    for (let doc = 0; doc < 500; doc++) {
      let text = '';
      for (let i = rng.int(1, 30); i > 0; i--) text += rng.pick(atoms);
      const whole = normaliseInto(text, 0, true, new OffsetMap());
      const map = new OffsetMap();
      let view = '';
      let built = 0;
      let arrived = 0;
      while (arrived < text.length) {
        arrived = Math.min(text.length, arrived + rng.int(1, 5));
        const piece = normaliseInto(text.slice(0, arrived), built, arrived === text.length, map);
        view += piece.text;
        built = piece.stop;
      }
      expect(view, JSON.stringify(text)).toBe(whole.text);
      expect(built).toBe(text.length);
    }
  });
});
