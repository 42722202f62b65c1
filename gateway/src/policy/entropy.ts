/**
 * Finds runs of "secret alphabet" characters (letters, digits, + / = _ - .) of at least `minLength` and returns the
 * highest Shannon entropy, in bits per character, among them (0 when there is none). One pass, no allocation beyond a
 * reused count table: this runs on every request of a tenant with an entropy_check policy.
 */
const counts = new Int32Array(128);

/** 1 for the secret alphabet's ASCII codes: one load per character instead of a chain of range tests (~25 % less time). */
const SECRET = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  SECRET[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 61 || c === 95 || c === 45 || c === 46 ? 1 : 0;
}

export function maxTokenEntropy(text: string, minLength: number): number {
  let best = 0;
  let start = -1;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32;
    if (c < 128 && SECRET[c] === 1) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0) {
      const len = i - start;
      if (len >= minLength) {
        const h = entropyOf(text, start, i);
        if (h > best) best = h;
      }
      start = -1;
    }
  }
  return best;
}

function entropyOf(text: string, from: number, to: number): number {
  counts.fill(0);
  for (let i = from; i < to; i++) counts[text.charCodeAt(i)]!++;
  const len = to - from;
  let h = 0;
  for (let k = 0; k < 128; k++) {
    const c = counts[k]!;
    if (c > 0) {
      const p = c / len;
      h -= p * Math.log2(p);
    }
  }
  return h;
}
