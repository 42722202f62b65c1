import { parentPort, workerData } from 'node:worker_threads';
import { sha256Bytes } from '../log/hash.js';
import type { Peak } from '../merkle/merkle.js';
import type { ChainBreak } from './record-check.js';

/**
 * The worker thread of WorkerRecordChecker (record-check.ts). It mirrors InlineRecordChecker over raw record bytes
 * (layout: record-codec.ts) with its own scratch buffers and the ledger's hashing only; the tamper tests run against
 * both.
 */

export interface RecordCheckWorkerData {
  /** [tree_size, root hex] of each checkpoint, ascending. */
  roots: ReadonlyArray<readonly [number, string]>;
  /** The state before the first record (record-check.ts ChainStart): seq, its entry hash, the tree's peaks [level, hex]. */
  start: { seq: number; prev: string; peaks: ReadonlyArray<readonly [number, string]> };
}

/** A chunk of records back to back, and where each starts (one more offset than records: the end). */
export interface RecordChunk {
  records: ArrayBuffer;
  offsets: ArrayBuffer;
}

export type RecordCheckRequest = RecordChunk | 'finish';
export type RecordCheckReply = { done: false } | { done: true; broken: ChainBreak | null };

const { roots, start: from } = workerData as RecordCheckWorkerData;
const port = parentPort!;
const peaks: Peak[] = from.peaks.map(([level, hex]) => ({ level, hash: Buffer.from(hex, 'hex') }));
let input = Buffer.allocUnsafe(64 * 1024);
const leafIn = Buffer.alloc(33);
const nodeIn = Buffer.alloc(65);
nodeIn[0] = 1;
const prevStored = Buffer.from(from.prev, 'hex'); // the previous record's stored hash (zeros before seq 1 stand for genesis)
let seq = from.seq;
let nextRoot = 0;
let broken: ChainBreak | null = null;

function rootHex(): string {
  let r = peaks[peaks.length - 1]!.hash;
  for (let i = peaks.length - 2; i >= 0; i--) {
    peaks[i]!.hash.copy(nodeIn, 1);
    r.copy(nodeIn, 33);
    r = sha256Bytes(nodeIn);
  }
  return r.toString('hex');
}

function check(records: Buffer, offsets: Uint32Array): ChainBreak | null {
  for (let i = 0; i + 1 < offsets.length; i++) {
    seq++;
    const start = offsets[i]!;
    const end = offsets[i + 1]!;
    const m = records[start + 33]!;
    const textAt = start + 34 + m * 32;
    // Records of odd seq are re-hashed by the reading thread; this one takes the even ones (the work halves evenly).
    if (seq % 2 === 0) {
      const needed = 64 + end - textAt;
      if (input.length < needed) input = Buffer.allocUnsafe(needed * 2);
      input.write(prevStored.toString('hex'), 0, 'latin1');
      records.copy(input, 64, textAt, end);
      if (sha256Bytes(input.subarray(0, needed)).compare(records, start + 1, start + 33) !== 0) {
        return { seq, reason: 'entry ' + seq + ': stored hash does not match its content' };
      }
    }
    records.copy(prevStored, 0, start + 1, start + 33);
    records.copy(leafIn, 1, start + 1, start + 33);
    let h: Buffer = sha256Bytes(leafIn);
    let level = 0;
    while (peaks.length > 0 && peaks[peaks.length - 1]!.level === level) {
      peaks.pop()!.hash.copy(nodeIn, 1);
      h.copy(nodeIn, 33);
      h = sha256Bytes(nodeIn);
      level++;
      if (level > m) return { seq, reason: 'entry ' + seq + ': wrong number of stored Merkle subtree roots' };
      const at = start + 34 + (level - 1) * 32;
      if (h.compare(records, at, at + 32) !== 0) return { seq, reason: 'entry ' + seq + ': stored Merkle subtree root (level ' + level + ') is wrong' };
    }
    if (level !== m) return { seq, reason: 'entry ' + seq + ': wrong number of stored Merkle subtree roots' };
    peaks.push({ level, hash: h });
    for (let r = roots[nextRoot]; r !== undefined && r[0] === seq; r = roots[++nextRoot]) {
      if (rootHex() !== r[1]) {
        const lastGood = nextRoot > 0 ? roots[nextRoot - 1]![0] : from.seq;
        return { seq, reason: 'entries ' + (lastGood + 1) + '..' + seq + ' differ from the signed checkpoint at tree size ' + seq + ' (chain rewritten)' };
      }
    }
  }
  return null;
}

port.on('message', (msg: RecordCheckRequest) => {
  if (msg === 'finish') {
    port.postMessage({ done: true, broken } satisfies RecordCheckReply);
    return;
  }
  if (broken === null) broken = check(Buffer.from(msg.records), new Uint32Array(msg.offsets));
  port.postMessage({ done: false } satisfies RecordCheckReply);
});
