import { describe, expect, it } from 'vitest';
import { maxTokenEntropy } from './entropy.js';

/** The definition, written plainly: runs of the secret alphabet, Shannon entropy of each long enough run, the highest. */
function reference(text: string, minLength: number): number {
  let best = 0;
  for (const run of text.match(/[A-Za-z0-9+/=_.-]+/g) ?? []) {
    if (run.length < minLength) continue;
    const counts = new Map<string, number>();
    for (const ch of run) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    let h = 0;
    for (const code of [...counts.keys()].map((k) => k.charCodeAt(0)).sort((a, b) => a - b)) {
      const p = counts.get(String.fromCharCode(code))! / run.length;
      h -= p * Math.log2(p);
    }
    best = Math.max(best, h);
  }
  return best;
}

describe('maxTokenEntropy', () => {
  it('is the highest Shannon entropy among runs of the secret alphabet of at least minLength', () => {
    expect(maxTokenEntropy('', 8)).toBe(0);
    expect(maxTokenEntropy('aaaaaaaaaaaa', 8)).toBe(0);
    expect(maxTokenEntropy('abcdefgh', 8)).toBe(3);
    expect(maxTokenEntropy('abcdefg h', 8)).toBe(0);
    expect(maxTokenEntropy('key=sk_live_4eC39HqLyjWDarjtT1zdp7dc and more', 16)).toBeGreaterThan(4);
  });

  it('equals the plain definition on random text of every kind of character', () => {
    const alphabet = 'abcXYZ0189+/=_-.:; \n"é✓\u{1F600}';
    const chars = [...alphabet];
    for (let i = 0; i < 3000; i++) {
      let text = '';
      const n = Math.floor(Math.random() * 200);
      for (let k = 0; k < n; k++) text += Math.random() < 0.7 ? String.fromCharCode(33 + Math.floor(Math.random() * 94)) : chars[Math.floor(Math.random() * chars.length)]!;
      const minLength = 1 + Math.floor(Math.random() * 24);
      expect(maxTokenEntropy(text, minLength)).toBe(reference(text, minLength));
    }
  });
});
