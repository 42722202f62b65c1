import { describe, expect, it } from 'vitest';
import { estimateProgramSize } from './pattern-size.js';
import { PACKS } from './packs.js';

describe('estimateProgramSize', () => {
  it('expands counted repetitions as RE2 does, nested ones multiplied', () => {
    expect(estimateProgramSize('ab')).toBe(2);
    expect(estimateProgramSize('a.{1000}b')).toBeGreaterThanOrEqual(1000);
    expect(estimateProgramSize('(?:ab){10}')).toBeGreaterThan(estimateProgramSize('(?:ab){2}'));
    expect(estimateProgramSize('(a{100}){100}')).toBeGreaterThanOrEqual(10_000);
    expect(estimateProgramSize('[a-z]{1,200}')).toBeGreaterThanOrEqual(200);
  });

  it('treats flags, named groups and classes as what they are, and never throws on malformed input', () => {
    expect(estimateProgramSize('(?i)abc')).toBe(3);
    expect(estimateProgramSize('(?P<x>ab)')).toBeLessThan(10);
    expect(estimateProgramSize('[]a]')).toBe(2);
    for (const bad of ['(', ')', '[', '\\', '{', 'a{', 'a{1,', '(?', '(?P<', '[[:alpha:', 'x{99999999999}']) expect(Number.isFinite(estimateProgramSize(bad))).toBe(true);
  });

  it('keeps the stock packs far under the default limits', () => {
    for (const p of PACKS.RUNTIME_PAID_POLICIES) {
      const patterns = (p.rules as { patterns?: string[] }).patterns ?? [];
      for (const pattern of patterns) expect(estimateProgramSize(pattern)).toBeLessThan(100);
    }
  });
});
