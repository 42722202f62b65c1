/**
 * Values written the way they reach a prompt or a log through other hands (issue 31, item 4): full-width characters
 * (an East Asian input method), percent-encoding (a URL, a form post) and HTML character references (a page, an
 * e-mail body). Each spelling means the same value to a reader; the recognizers see it after normalising.
 */

const NAMED: Readonly<Record<string, string>> = {
  '@': '&commat;',
  '.': '&period;',
  '+': '&plus;',
  '(': '&lpar;',
  ')': '&rpar;',
  ' ': '&nbsp;',
  '/': '&sol;',
  ':': '&colon;',
  '_': '&lowbar;',
  '=': '&equals;',
};

const isSeparator = (ch: string): boolean => !/[\p{L}\p{N}]/u.test(ch);

/** `ch` as a full-width form (printable ASCII and the space; anything else stays). */
function fullWidth(ch: string): string {
  const c = ch.charCodeAt(0);
  if (c === 0x20) return '\u3000';
  return c > 0x20 && c < 0x7f ? String.fromCharCode(c - 0x21 + 0xff01) : ch;
}

function percent(ch: string): string {
  return [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** Every separator of `value` written with `one`; a value without any has its first character written so. */
function encodeSeparators(value: string, one: (ch: string) => string): string {
  const chars = [...value];
  if (!chars.some(isSeparator)) return one(chars[0] as string) + chars.slice(1).join('');
  return chars.map((ch) => (isSeparator(ch) ? one(ch) : ch)).join('');
}

export const ENCODINGS: readonly { kind: string; encode: (value: string) => string }[] = [
  { kind: 'full-width', encode: (v) => [...v].map(fullWidth).join('') },
  { kind: 'percent-encoded', encode: (v) => encodeSeparators(v, percent) },
  { kind: 'decimal reference', encode: (v) => encodeSeparators(v, (ch) => `&#${ch.codePointAt(0)};`) },
  { kind: 'hex reference', encode: (v) => encodeSeparators(v, (ch) => `&#x${(ch.codePointAt(0) as number).toString(16)};`) },
  { kind: 'named reference', encode: (v) => encodeSeparators(v, (ch) => NAMED[ch] ?? `&#${ch.codePointAt(0)};`) },
];

/** Text with escapes, references and full-width or decomposed characters, and no personal data: all must stay. */
export const ENCODED_CLEAN_TEXTS: readonly string[] = [
  'Search: https://example.com/search?q=caf%C3%A9%20com%20leite&amp;lang=pt&amp;page=2',
  'Tom &amp; Jerry &mdash; 50% off for R&D and Q&A; see &lt;b&gt;bold&lt;/b&gt; and &copy; 2024.',
  'Ｆｕｌｌ－ｗｉｄｔｈ ｔｅｘｔ： ｖｅｒｓｉｏｎ ２．４．１， １４：３０， Ｒ＄ １．２３４，５６ （ｏｋ）',
  'Joa\u0303o e\u0301 o responsa\u0301vel pela ac\u0327a\u0303o… ½ x² ﬁle nº 12 e 3ª vez.',
  'Order &#35;12345 shipped on 2024&#45;11&#45;05 at 14&colon;30&period; Build 1&period;2&period;3&#x2B;45.',
  'path=%2Fusr%2Flocal%2Fbin, build 1.2.3%2B45, 100%25 done, icon%402x.png and logo&#64;3x.svg',
  'ｉｃｏｎ＠２ｘ．ｐｎｇ，ｌｏｄａｓｈ＠４．１７．２１ ａｎｄ ｕｓｅｒ＠ｌｏｃａｌｈｏｓｔ',
  'Preço&nbsp;R$&nbsp;1.234,56 &ndash; prazo de 3&nbsp;a&nbsp;5 dias&hellip; versão 2.14.3&#46;',
];
