import { describe, expect, it } from 'vitest';
import { ALL_PII_ENTITIES, createPiiRedactor } from './index.js';

const r = createPiiRedactor();

describe('createPiiRedactor', () => {
  it('redacts with the [REDACTED:ENTITY] format and reports sorted, non-overlapping UTF-16 spans', () => {
    const text = 'Mail ana@example.com, card 4111 1111 1111 1111, CPF 529.982.247-25.';
    const out = r.redact(text);
    expect(out.text).toBe('Mail [REDACTED:EMAIL], card [REDACTED:CREDIT_CARD], CPF [REDACTED:BR_CPF].');
    expect(out.matches.map((m) => [m.entity, text.slice(m.start, m.end)])).toEqual([
      ['EMAIL', 'ana@example.com'],
      ['CREDIT_CARD', '4111 1111 1111 1111'],
      ['BR_CPF', '529.982.247-25'],
    ]);
  });

  it('returns the same string instance when nothing matched', () => {
    const text = 'Nothing to see: version 2.4.1, 14:30, R$ 1.234,56 and order #123.'.repeat(3);
    const out = r.redact(text);
    expect(out.text).toBe(text);
    expect(Object.is(out.text, text)).toBe(true);
    expect(out.matches).toEqual([]);
  });

  it('handles the empty string', () => {
    expect(r.scan('')).toEqual([]);
    expect(r.redact('').text).toBe('');
    const s = r.createStream();
    expect(s.push('')).toBe('');
    expect(s.end()).toBe('');
    expect(s.matches).toBe(0);
  });

  it('keeps offsets right around emoji, accents and CJK (UTF-16 code units)', () => {
    const text = '👩‍💻 Olá, João! 日本 ✉️ joão@exemplo.com.br 🎉 e 🇧🇷 (11) 91234-5678 ✅';
    const matches = r.scan(text);
    expect(matches.map((m) => text.slice(m.start, m.end))).toEqual(['joão@exemplo.com.br', '(11) 91234-5678']);
    expect(r.redact(text).text).toBe('👩‍💻 Olá, João! 日本 ✉️ [REDACTED:EMAIL] 🎉 e 🇧🇷 [REDACTED:PHONE] ✅');
  });

  it('merges overlapping candidates into one redaction that leaks nothing', () => {
    // The card pattern also sees `55 11 91234-5678` inside the phone; the phone starts earlier and wins.
    const text = 'tel +55 11 91234-5678 ok';
    expect(r.redact(text).text).toBe('tel [REDACTED:PHONE] ok');
    // A bare 14-digit number valid as both CNPJ and card: one match, named by the stronger check.
    const both = 'id 58543705000305 ok';
    expect(r.scan(both)).toEqual([{ entity: 'BR_CNPJ', start: 3, end: 17 }]);
  });

  it('handles adjacent entities and entities at the very start and end', () => {
    const text = 'ana@example.com,529.982.247-25;10.0.0.1';
    expect(r.redact(text).text).toBe('[REDACTED:EMAIL],[REDACTED:BR_CPF];[REDACTED:IP_ADDRESS]');
  });

  it('only looks for the entities it was built with', () => {
    const only = createPiiRedactor(['EMAIL']);
    expect(only.entities).toEqual(['EMAIL']);
    expect(only.redact('ana@example.com 4111 1111 1111 1111').text).toBe('[REDACTED:EMAIL] 4111 1111 1111 1111');
    expect(createPiiRedactor([]).redact('ana@example.com').text).toBe('ana@example.com');
    expect(r.entities).toEqual(ALL_PII_ENTITIES);
    expect(() => createPiiRedactor(['NOPE' as never])).toThrow(/unknown PII entity/);
  });

  it('scans 1 MB inputs, with and without entities, without blowing up', () => {
    const prose = 'Lorem ipsum dolor sit amet, 12:30 v2.4.1 R$ 10,00. ';
    const big = prose.repeat(Math.ceil(1_000_000 / prose.length));
    expect(r.redact(big).text).toBe(big);
    const dense = 'ana@example.com 4111 1111 1111 1111 '.repeat(30_000);
    const out = r.redact(dense);
    expect(out.matches.length).toBe(60_000);
    // Adversarial shapes: one huge digit run, one huge local-part-like word, colons everywhere.
    for (const evil of ['9'.repeat(1_000_000), 'a'.repeat(1_000_000) + '@x', 'a:'.repeat(500_000), '1.'.repeat(500_000)]) {
      expect(r.scan(evil)).toEqual([]);
    }
  });

  it('survives lone surrogates and keeps offsets after them', () => {
    const text = 'broken \uD83D pair, then ana@example.com and \uDE00 4111 1111 1111 1111';
    const found = r.scan(text).map((m) => text.slice(m.start, m.end));
    expect(found).toEqual(['ana@example.com', '4111 1111 1111 1111']);
  });

  it('finds entities written in full-width characters, percent-encoded or as HTML entities, and redacts the original span', () => {
    const text = 'To ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｃｏｍ, alice%40example.com, alice&#64;example.com, bob&commat;example&period;org or c&#x40;example.com.';
    const out = r.redact(text);
    expect(out.text).toBe('To [REDACTED:EMAIL], [REDACTED:EMAIL], [REDACTED:EMAIL], [REDACTED:EMAIL] or [REDACTED:EMAIL].');
    expect(out.matches.map((m) => text.slice(m.start, m.end))).toEqual([
      'ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｃｏｍ',
      'alice%40example.com',
      'alice&#64;example.com',
      'bob&commat;example&period;org',
      'c&#x40;example.com',
    ]);
    // Digits too: a full-width card, a CPF with encoded separators, a phone with non-breaking spaces.
    expect(r.redact('card ４１１１ １１１１ １１１１ １１１１ ok').text).toBe('card [REDACTED:CREDIT_CARD] ok');
    expect(r.redact('CPF 529&#46;982&#46;247&#45;25 ok').text).toBe('CPF [REDACTED:BR_CPF] ok');
    expect(r.redact('tel +55&nbsp;11&nbsp;91234-5678 ok').text).toBe('tel [REDACTED:PHONE] ok');
    // Decomposed accents (NFD) are composed before matching, and offsets stay those of the original.
    const nfd = 'e-mail: jose\u0301.conceic\u0327a\u0303o@correio.pt!';
    expect(r.scan(nfd).map((m) => nfd.slice(m.start, m.end))).toEqual(['jose\u0301.conceic\u0327a\u0303o@correio.pt']);
  });

  it('leaves encoded text without entities as it is, the same string instance', () => {
    for (const text of ['50% off, 100%25 sure, R&D, AT&amp;T, &lt;b&gt; and a%20b', 'Ｈｅｌｌｏ…　ｗｏｒｌｄ ½ x² ﬁle', 'icon&#64;2x.png', 'R&D; Q&A;']) {
      const out = r.redact(text);
      expect(out.matches).toEqual([]);
      expect(Object.is(out.text, text)).toBe(true);
    }
  });

  it('still finds what the text holds as written when decoding would hide it', () => {
    // Decoded, `&#49;` glues a digit to the address (`…com1`); as written the address ends before `&`.
    expect(r.redact('ana@example.com&#49; and 4111 1111 1111 1111%31').text).toBe('[REDACTED:EMAIL]&#49; and [REDACTED:CREDIT_CARD]%31');
  });

  it('redacts a whole PEM private key, plain or inside a JSON string, and not public keys', () => {
    const body = Array.from({ length: 30 }, (_, i) => `MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC${String(i).padStart(2, '0')}abcdefghijk`);
    const plain = `key:\n-----BEGIN PRIVATE KEY-----\n${body.join('\n')}\n-----END PRIVATE KEY-----\nbye`;
    expect(r.redact(plain).text).toBe('key:\n[REDACTED:API_KEY]\nbye');
    const json = JSON.stringify({ k: plain });
    expect(r.redact(json).text).toBe(JSON.stringify({ k: 'key:\n[REDACTED:API_KEY]\nbye' }));
    const pub = '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----';
    expect(r.redact(pub).text).toBe(pub);
  });
});

