import { describe, expect, it } from 'vitest';
import { buildCorpus } from '../../../test/pii-corpus/build-corpus.js';
import { createPrng } from '../../../test/pii-corpus/prng.js';
import type { PiiRedactor } from './index.js';
import { createPiiRedactor } from './index.js';

const redactor = createPiiRedactor();

/** Streams `text` in the given chunk sizes; returns every emitted piece. */
function streamPieces(r: PiiRedactor, text: string, sizes: readonly number[]): string[] {
  const s = r.createStream();
  const pieces: string[] = [];
  let at = 0;
  for (const n of sizes) {
    pieces.push(s.push(text.slice(at, at + n)));
    at += n;
  }
  if (at < text.length) pieces.push(s.push(text.slice(at)));
  pieces.push(s.end());
  return pieces;
}

function randomSizes(rng: ReturnType<typeof createPrng>, len: number, maxChunk: number): number[] {
  const sizes: number[] = [];
  let left = len;
  while (left > 0) {
    const n = Math.min(left, rng.int(0, maxChunk));
    sizes.push(n);
    left -= n;
  }
  return sizes;
}

describe('stream redaction', () => {
  it('equals whole-text redaction for random splits of every corpus text (seeded)', () => {
    const rng = createPrng(7);
    const corpus = buildCorpus();
    let checked = 0;
    for (const sample of corpus) {
      const want = redactor.redact(sample.text).text;
      for (let round = 0; round < 4; round++) {
        const sizes = randomSizes(rng, sample.text.length, round === 0 ? 1 : round === 1 ? 4 : 25);
        const got = streamPieces(redactor, sample.text, sizes).join('');
        if (got !== want) expect({ id: sample.id, sizes, got }).toEqual({ id: sample.id, sizes, got: want });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(4000);
  });

  it('equals whole-text redaction on long multi-entity documents split at random', () => {
    const rng = createPrng(11);
    const texts = buildCorpus().map((s) => s.text);
    for (let doc = 0; doc < 30; doc++) {
      let text = '';
      for (let i = 0; i < 40; i++) text += rng.pick(texts) + rng.pick([' ', '\n', '\n\n', '', ', ']);
      const want = redactor.redact(text).text;
      expect(streamPieces(redactor, text, randomSizes(rng, text.length, 40)).join('')).toBe(want);
    }
  });

  it('catches a card split over three chunks', () => {
    const s = redactor.createStream();
    const out = [s.push('Pay with 4111 11'), s.push('11 1111 '), s.push('1111 now, thanks'), s.end()];
    expect(out.join('')).toBe('Pay with [REDACTED:CREDIT_CARD] now, thanks');
    expect(out.join('')).not.toMatch(/\d{4}/);
    expect(s.matches).toBe(1);
  });

  it('catches a CPF split mid-digit and holds back only the candidate', () => {
    const s = redactor.createStream();
    const first = s.push('O CPF do cliente é 529.98');
    // Everything before the number is out at once; the partial CPF is held.
    expect(first).toBe('O CPF do cliente é ');
    const rest = s.push('2.247-25, ok?') + s.end();
    expect(first + rest).toBe('O CPF do cliente é [REDACTED:BR_CPF], ok?');
  });

  it('catches an e-mail split at the @ and a PEM key split across many chunks', () => {
    const text = 'Mail joao.silva@empresa.com.br now. -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq\nhkiG9w0BAQEFAASC\n-----END PRIVATE KEY----- done';
    const sizes = [10, 6, 3, 20, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7];
    const pieces = streamPieces(redactor, text, sizes);
    expect(pieces.join('')).toBe('Mail [REDACTED:EMAIL] now. [REDACTED:API_KEY] done');
  });

  it('never emits unredacted entity text: every emitted prefix is a prefix of the final redaction', () => {
    const rng = createPrng(3);
    const texts = buildCorpus().filter((s) => s.spans.length > 0).map((s) => s.text);
    for (let i = 0; i < 300; i++) {
      const text = rng.pick(texts);
      const want = redactor.redact(text).text;
      let emitted = '';
      for (const piece of streamPieces(redactor, text, randomSizes(rng, text.length, 6))) {
        emitted += piece;
        expect(want.startsWith(emitted)).toBe(true);
      }
    }
  });

  it('holds back little on ordinary prose (time to first token barely moves)', () => {
    const s = redactor.createStream();
    expect(s.push('Hello! ')).toBe('Hello! ');
    expect(s.push('The answer is 42 and the ')).toBe('The answer is 42 and the ');
    const held = s.push('weather is nice');
    expect('weather is nice'.length - held.length).toBeLessThanOrEqual(4); // only the last word, `nice`
    expect(s.end()).toBe('nice'.slice(-('weather is nice'.length - held.length)) || '');
  });

  it('catches entities in full-width, percent-encoded and HTML-entity spellings split anywhere, an entity split mid-escape included', () => {
    const text = 'Write to alice&#64;example.com, ｂｏｂ＠ｅｘａｍｐｌｅ．ｃｏｍ or carol%40example.com (or dan&commat;example.org) today.';
    const want = 'Write to [REDACTED:EMAIL], [REDACTED:EMAIL] or [REDACTED:EMAIL] (or [REDACTED:EMAIL]) today.';
    expect(redactor.redact(text).text).toBe(want);
    for (let cut = 1; cut < text.length; cut++) {
      expect(streamPieces(redactor, text, [cut]).join(''), `cut at ${cut}`).toBe(want);
    }
    expect(streamPieces(redactor, text, Array.from({ length: text.length }, () => 1)).join('')).toBe(want);
    const s = redactor.createStream();
    const out = [s.push('Write to alice&'), s.push('#6'), s.push('4;exam'), s.push('ple.com now'), s.end()];
    expect(out.join('')).toBe('Write to [REDACTED:EMAIL] now');
    expect(out[0]).toBe('Write to ');
  });

  it('equals whole-text redaction on random encoded noise (fuzz, seeded)', () => {
    const atoms = [
      'ana', '@', '%40', '&#64;', '&commat;', '&#x40', '＠', 'ｅｘａｍｐｌｅ', 'example', '.com', '&period;', '%2E', '．', ' ',
      '4111', '４１１１', '&nbsp;', '%20', '-', '&', '%', '#', ';', '&amp;', 'e\u0301', '\u0301', 'é', '…', '529', '.982', '.247-25', '🙂', 'x',
    ];
    fuzzAgainstWhole(createPrng(5), atoms, 40);
  });

  it('counts matches and refuses push after end', () => {
    const s = redactor.createStream();
    s.push('a@example.com b@example.com ');
    s.end();
    expect(s.matches).toBe(2);
    expect(() => s.push('x')).toThrow();
  });

  it('equals whole-text redaction on random entity-dense noise (fuzz, seeded)', () => {
    const atoms = [
      '4111', ' ', '-', '.', '1', '55', '9', '(11)', '+', '@', 'ana', 'example.com', '.br', ':', '::', 'ff', '192.168',
      '529.982.247-25', '11.222.333/0001-81', 'DE89 3704', ' 0044 0532 0130 00', 'sk-', 'Ab3', '\n', '\\n', 'eyJ',
      '-----BEGIN PRIVATE KEY-----', 'MIIEvQ', '-----END PRIVATE KEY-----', 'é', '🙂', '0', '2', '/', 'AKIA', 'Z',
    ];
    fuzzAgainstWhole(createPrng(99), atoms, 60);
  });

  it('keeps offsets right when a chunk ends inside a surrogate pair', () => {
    for (const text of ['🙂::1 ok', '🙂529.982.247-25', '🙂-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----', 'x🙂🙂ana@example.com']) {
      const want = redactor.redact(text).text;
      for (let cut = 1; cut < text.length; cut++) {
        expect(streamPieces(redactor, text, [cut]).join(''), `${text} cut at ${cut}`).toBe(want);
        expect(streamPieces(redactor, text, Array.from({ length: text.length }, () => 1)).join('')).toBe(want);
      }
    }
  });
});

/** 300 documents of up to `maxAtoms` random atoms, each streamed in three random splits: equal to whole-text redaction. */
function fuzzAgainstWhole(rng: ReturnType<typeof createPrng>, atoms: readonly string[], maxAtoms: number): void {
  for (let doc = 0; doc < 300; doc++) {
    let text = '';
    const len = rng.int(1, maxAtoms);
    for (let i = 0; i < len; i++) text += rng.pick(atoms);
    const want = redactor.redact(text).text;
    for (let round = 0; round < 3; round++) {
      const sizes = randomSizes(rng, text.length, [1, 3, 17][round] as number);
      const got = streamPieces(redactor, text, sizes).join('');
      if (got !== want) expect({ text, sizes, got }).toEqual({ text, sizes, got: want });
    }
  }
}
