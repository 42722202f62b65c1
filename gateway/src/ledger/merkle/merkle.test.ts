import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { consistencyPath, inclusionPath, peaksOf, pushLeaf, rangeHash, rootFromPeaks, verifyConsistencyPath, verifyInclusionPath, type Peak } from './merkle.js';

// A from-the-RFC reference: MTH, PATH and PROOF written recursively over an array of leaves (RFC 9162 §2.1).
const sha = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const leafData = (i: number): Buffer => sha(Buffer.from(`entry ${i}`));
const k = (n: number): number => 2 ** Math.ceil(Math.log2(n) - 1);
function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return sha();
  if (d.length === 1) return sha(Buffer.from([0]), d[0]!);
  const split = k(d.length);
  return sha(Buffer.from([1]), mth(d.slice(0, split)), mth(d.slice(split)));
}
function path(m: number, d: Buffer[]): Buffer[] {
  if (d.length <= 1) return [];
  const split = k(d.length);
  return m < split ? [...path(m, d.slice(0, split)), mth(d.slice(split))] : [...path(m - split, d.slice(split)), mth(d.slice(0, split))];
}
function subproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const split = k(d.length);
  return m <= split
    ? [...subproof(m, d.slice(0, split), b), mth(d.slice(split))]
    : [...subproof(m - split, d.slice(split), false), mth(d.slice(0, split))];
}

const N = 40;
const leaves = Array.from({ length: N }, (_, i) => leafData(i));
const reader = (level: number, index: number): Buffer => mth(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('merkle (RFC 9162)', () => {
  it('roots from peaks, from stored subtrees and from the reference agree for every size', () => {
    const peaks: Peak[] = [];
    for (let n = 1; n <= N; n++) {
      pushLeaf(peaks, sha(Buffer.from([0]), leaves[n - 1]!));
      const expected = hex(mth(leaves.slice(0, n)));
      expect(hex(rootFromPeaks(peaks))).toBe(expected);
      expect(hex(rangeHash(reader, 0, n))).toBe(expected);
      expect(hex(rootFromPeaks(peaksOf(reader, n)))).toBe(expected);
    }
  });

  it('pushLeaf returns the subtree roots the new leaf completes, level 1 upwards', () => {
    const peaks: Peak[] = [];
    for (let n = 1; n <= 16; n++) {
      const completed = pushLeaf(peaks, sha(Buffer.from([0]), leaves[n - 1]!));
      const expected = [];
      for (let level = 1; n % 2 ** level === 0; level++) expected.push(hex(reader(level, n / 2 ** level - 1)));
      expect(completed.map(hex)).toEqual(expected);
    }
  });

  it('inclusion paths equal the reference and verify; forged ones fail', () => {
    for (let n = 1; n <= N; n++) {
      const root = hex(mth(leaves.slice(0, n)));
      for (let m = 0; m < n; m++) {
        const p = inclusionPath(reader, m, n).map(hex);
        expect(p).toEqual(path(m, leaves.slice(0, n)).map(hex));
        expect(verifyInclusionPath(hex(leaves[m]!), m, n, p, root)).toBe(true);
        expect(verifyInclusionPath(hex(leaves[(m + 1) % N]!), m, n, p, root)).toBe(false);
        if (p.length > 0) {
          const forged = [...p];
          forged[forged.length - 1] = 'ff'.repeat(32);
          expect(verifyInclusionPath(hex(leaves[m]!), m, n, forged, root)).toBe(false);
          expect(verifyInclusionPath(hex(leaves[m]!), m, n, p.slice(1), root)).toBe(false);
        }
        if (n > 1) expect(verifyInclusionPath(hex(leaves[m]!), (m + 1) % n, n, p, root)).toBe(false);
      }
    }
  });

  it('consistency proofs equal the reference and verify; forged ones fail', () => {
    for (let n = 2; n <= N; n++) {
      const newRoot = hex(mth(leaves.slice(0, n)));
      for (let m = 1; m < n; m++) {
        const oldRoot = hex(mth(leaves.slice(0, m)));
        const p = consistencyPath(reader, m, n).map(hex);
        expect(p).toEqual(subproof(m, leaves.slice(0, n), true).map(hex));
        expect(verifyConsistencyPath(m, n, oldRoot, newRoot, p)).toBe(true);
        expect(verifyConsistencyPath(m, n, hex(mth(leaves.slice(1, m + 1))), newRoot, p)).toBe(false);
        expect(verifyConsistencyPath(m, n, oldRoot, 'ab'.repeat(32), p)).toBe(false);
        const forged = [...p];
        forged[0] = '00'.repeat(32);
        expect(verifyConsistencyPath(m, n, oldRoot, newRoot, forged)).toBe(false);
      }
    }
    const root = hex(mth(leaves.slice(0, 5)));
    expect(verifyConsistencyPath(5, 5, root, root, [])).toBe(true);
    expect(verifyConsistencyPath(5, 5, root, root, [root])).toBe(false);
  });
});
