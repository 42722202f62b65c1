import { EMPTY_ROOT, leafHash, nodeHash } from '../log/hash.js';

/**
 * RFC 9162 (Certificate Transparency v2) Merkle tree over a tenant's entries: leaf i is the entry of seq i + 1.
 *
 * Storage model: every complete, aligned subtree's root is stored once, when its last leaf is appended (see
 * record-codec.ts): the subtree at (level k, index j) covers leaves [j·2^k, (j+1)·2^k) and lives in the record of
 * seq (j+1)·2^k. Any MTH(D[a:b]) that a proof needs is either such a subtree or a right edge, which is a fold of
 * O(log n) of them, so a proof costs O(log n) reads and never rereads every leaf.
 */

/** Reads the root of the aligned complete subtree (level, index); level 0 is a leaf hash. */
export type SubtreeReader = (level: number, index: number) => Uint8Array;

/** A complete subtree on the right edge of the tree, as kept while appending. */
export interface Peak {
  level: number;
  hash: Buffer;
}

/** Largest power of two strictly smaller than n (n >= 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isPowerOfTwo(n: number): boolean {
  // Not `n & (n - 1)`: tree sizes may pass 2^31, where bitwise operators wrap.
  return n > 0 && 2 ** Math.round(Math.log2(n)) === n;
}

/**
 * Appends a leaf to the right-edge peaks and returns the subtree roots it completed, levels 1..m in order
 * (m = number of trailing zero bits of the new size): exactly what the new entry's record stores.
 */
export function pushLeaf(peaks: Peak[], leaf: Buffer): Buffer[] {
  const completed: Buffer[] = [];
  let node: Peak = { level: 0, hash: leaf };
  for (;;) {
    const top = peaks[peaks.length - 1];
    if (top === undefined || top.level !== node.level) break;
    peaks.pop();
    node = { level: node.level + 1, hash: nodeHash(top.hash, node.hash) };
    completed.push(node.hash);
  }
  peaks.push(node);
  return completed;
}

/** MTH of the whole tree from its peaks: the right fold H(p1, H(p2, … pn)) (RFC 9162's split at the largest power of 2). */
export function rootFromPeaks(peaks: readonly Peak[]): Buffer {
  const last = peaks[peaks.length - 1];
  if (last === undefined) return EMPTY_ROOT;
  let root = last.hash;
  for (let i = peaks.length - 2; i >= 0; i--) root = nodeHash(peaks[i]!.hash, root);
  return root;
}

/** The levels of the peaks of a tree of `size` leaves, highest first: one per set bit of `size`. */
export function peakLevels(size: number): number[] {
  const levels: number[] = [];
  // Not bitwise: tree sizes may pass 2^31, where bitwise operators wrap.
  for (let level = Math.floor(Math.log2(Math.max(size, 1))); level >= 0 && size > 0; level--) {
    if (Math.floor(size / 2 ** level) % 2 === 1) levels.push(level);
  }
  return levels;
}

/** The peaks of a tree of `size` leaves, read from storage: one read per set bit of `size`. */
export function peaksOf(read: SubtreeReader, size: number): Peak[] {
  const peaks: Peak[] = [];
  let start = 0;
  for (const level of peakLevels(size)) {
    const width = 2 ** level;
    peaks.push({ level, hash: Buffer.from(read(level, start / width)) });
    start += width;
  }
  return peaks;
}

/** MTH(D[start:end]) where start is aligned to the largest power of two <= end - start (true of every proof range). */
export function rangeHash(read: SubtreeReader, start: number, end: number): Uint8Array {
  const size = end - start;
  if (size <= 0) return EMPTY_ROOT;
  if (isPowerOfTwo(size)) return read(Math.log2(size), start / size);
  const k = splitPoint(size);
  return nodeHash(rangeHash(read, start, start + k), rangeHash(read, start + k, end));
}

/** RFC 9162 §2.1.3.1 PATH(m, D[n]) for leaf `index` in a tree of `size` leaves, leaf-side first. */
export function inclusionPath(read: SubtreeReader, index: number, size: number): Uint8Array[] {
  const path: Uint8Array[] = [];
  let start = 0;
  let end = size;
  let m = index;
  // Walk down from the root, collecting siblings; reversed at the end so the leaf's sibling comes first.
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (m < k) {
      path.push(rangeHash(read, start + k, end));
      end = start + k;
    } else {
      path.push(rangeHash(read, start, start + k));
      start += k;
      m -= k;
    }
  }
  return path.reverse();
}

/** RFC 9162 §2.1.4.1 PROOF(m, D[n]): consistency between the first `from` leaves and the first `to` leaves. */
export function consistencyPath(read: SubtreeReader, from: number, to: number): Uint8Array[] {
  const proof: Uint8Array[] = [];
  if (from <= 0 || from >= to) return proof;
  let start = 0;
  let end = to;
  let m = from;
  let complete = true; // SUBPROOF's b flag: true while D[start:start+m] is the old tree itself
  while (m !== end - start) {
    const k = splitPoint(end - start);
    if (m <= k) {
      proof.push(rangeHash(read, start + k, end));
      end = start + k;
    } else {
      proof.push(rangeHash(read, start, start + k));
      start += k;
      m -= k;
      complete = false;
    }
  }
  if (!complete) proof.push(rangeHash(read, start, end));
  return proof.reverse();
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

function fromHex(hex: string): Buffer | null {
  return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : null;
}

/** RFC 9162 §2.1.3.2: does `auditPath` prove leaf `leafIndex` (entry hash `entryHashHex`) is in the tree with `rootHex`? */
export function verifyInclusionPath(entryHashHex: string, leafIndex: number, treeSize: number, auditPath: readonly string[], rootHex: string): boolean {
  const entry = fromHex(entryHashHex);
  const root = fromHex(rootHex);
  if (!entry || !root || !Number.isSafeInteger(leafIndex) || !Number.isSafeInteger(treeSize)) return false;
  if (leafIndex < 0 || leafIndex >= treeSize) return false;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r: Uint8Array = leafHash(entry);
  for (const hex of auditPath) {
    const p = fromHex(hex);
    if (!p || sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalBytes(r, root);
}

/** RFC 9162 §2.1.4.2: does `proof` show the tree of `toSize` (root `toRootHex`) extends the tree of `fromSize`? */
export function verifyConsistencyPath(fromSize: number, toSize: number, fromRootHex: string, toRootHex: string, proofHex: readonly string[]): boolean {
  const firstHash = fromHex(fromRootHex);
  const secondHash = fromHex(toRootHex);
  if (!firstHash || !secondHash || !Number.isSafeInteger(fromSize) || !Number.isSafeInteger(toSize)) return false;
  if (fromSize < 1 || fromSize > toSize) return false;
  if (fromSize === toSize) return proofHex.length === 0 && equalBytes(firstHash, secondHash);
  const path: Buffer[] = [];
  for (const hex of proofHex) {
    const p = fromHex(hex);
    if (!p) return false;
    path.push(p);
  }
  if (path.length === 0) return false;
  if (isPowerOfTwo(fromSize)) path.unshift(firstHash);
  let fn = fromSize - 1;
  let sn = toSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Uint8Array = path[0]!;
  let sr: Uint8Array = path[0]!;
  for (let i = 1; i < path.length; i++) {
    const c = path[i]!;
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalBytes(fr, firstHash) && equalBytes(sr, secondHash);
}
