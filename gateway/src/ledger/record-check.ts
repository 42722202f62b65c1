import { Worker } from 'node:worker_threads';
import { entryHashOfBytes, leafHash } from './hash.js';
import { pushLeaf, rootFromPeaks, type Peak } from './merkle.js';
import { recordCanonical, recordHash, recordNode, recordNodeCount } from './record-codec.js';

/** Where a recomputation disagrees with what is stored or signed. */
export interface ChainBreak {
  seq: number;
  reason: string;
}

/**
 * Recomputes, record by record in seq order from 1, what only hashing can check: each record's hash from its own
 * bytes (prev_hash taken from the previous record's stored hash, whose link the caller checks), the RFC 9162 tree
 * from those hashes against the subtree roots stored in each record, and each checkpoint's signed root
 * (`roots`: [tree_size, root hex], ascending).
 */
export interface RecordChecker {
  /** False when the caller must itself re-hash the records of odd seq (the worker takes the even ones). */
  readonly hashesAll: boolean;
  add(record: Buffer): void;
  /** Resolves when the checker can take more (bounds the memory queued for a worker). */
  ready(): Promise<void>;
  finish(): Promise<ChainBreak | null>;
}

const GENESIS = '0'.repeat(64);

/** In the caller's thread: for short chains, where a worker's start-up costs more than it saves. */
export class InlineRecordChecker implements RecordChecker {
  readonly hashesAll = true;
  readonly #roots: ReadonlyArray<readonly [number, string]>;
  readonly #peaks: Peak[] = [];
  #prev = GENESIS;
  #seq = 0;
  #nextRoot = 0;
  #broken: ChainBreak | null = null;

  constructor(roots: ReadonlyArray<readonly [number, string]>) {
    this.#roots = roots;
  }

  add(record: Buffer): void {
    if (this.#broken) return;
    const seq = ++this.#seq;
    const stored = recordHash(record);
    const computed = entryHashOfBytes(this.#prev, recordCanonical(record));
    if (computed.compare(stored) !== 0) {
      this.#broken = { seq, reason: `entry ${seq}: stored hash does not match its content` };
      return;
    }
    this.#prev = computed.toString('hex');
    const nodes = pushLeaf(this.#peaks, leafHash(computed));
    if (recordNodeCount(record) !== nodes.length) {
      this.#broken = { seq, reason: `entry ${seq}: wrong number of stored Merkle subtree roots` };
      return;
    }
    for (let level = 1; level <= nodes.length; level++) {
      if (nodes[level - 1]!.compare(recordNode(record, level)) !== 0) {
        this.#broken = { seq, reason: `entry ${seq}: stored Merkle subtree root (level ${level}) is wrong` };
        return;
      }
    }
    for (let r = this.#roots[this.#nextRoot]; r !== undefined && r[0] === seq; r = this.#roots[++this.#nextRoot]) {
      if (rootFromPeaks(this.#peaks).toString('hex') !== r[1]) {
        const lastGood = this.#nextRoot > 0 ? this.#roots[this.#nextRoot - 1]![0] : 0;
        this.#broken = { seq, reason: `entries ${lastGood + 1}..${seq} differ from the signed checkpoint at tree size ${seq} (chain rewritten)` };
        return;
      }
    }
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  finish(): Promise<ChainBreak | null> {
    return Promise.resolve(this.#broken);
  }
}

// The worker's code, as plain JS evaluated by `new Worker(…, { eval: true })`: it works the same from the TS
// sources (tests), from dist/ and under any loader, with no separate file to ship. It mirrors InlineRecordChecker
// (record layout: record-codec.ts); the tamper tests run against both.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { hash } = require('node:crypto');
const roots = workerData.roots;
const peaks = [];
let input = Buffer.allocUnsafe(64 * 1024);
const leafIn = Buffer.alloc(33);
const nodeIn = Buffer.alloc(65);
nodeIn[0] = 1;
const prevStored = Buffer.alloc(32); // the previous record's stored hash (zeros before seq 1 stand for genesis)
let seq = 0;
let nextRoot = 0;
let broken = null;
function rootHex() {
  let r = peaks[peaks.length - 1].hash;
  for (let i = peaks.length - 2; i >= 0; i--) {
    peaks[i].hash.copy(nodeIn, 1);
    r.copy(nodeIn, 33);
    r = hash('sha256', nodeIn, 'buffer');
  }
  return r.toString('hex');
}
function check(records, offsets) {
  for (let i = 0; i + 1 < offsets.length; i++) {
    seq++;
    const start = offsets[i];
    const end = offsets[i + 1];
    const m = records[start + 33];
    const textAt = start + 34 + m * 32;
    // Records of odd seq are re-hashed by the reading thread; this one takes the even ones (the work halves evenly).
    if (seq % 2 === 0) {
      const needed = 64 + end - textAt;
      if (input.length < needed) input = Buffer.allocUnsafe(needed * 2);
      input.write(prevStored.toString('hex'), 0, 'latin1');
      records.copy(input, 64, textAt, end);
      if (hash('sha256', input.subarray(0, needed), 'buffer').compare(records, start + 1, start + 33) !== 0) {
        return { seq, reason: 'entry ' + seq + ': stored hash does not match its content' };
      }
    }
    records.copy(prevStored, 0, start + 1, start + 33);
    records.copy(leafIn, 1, start + 1, start + 33);
    let h = hash('sha256', leafIn, 'buffer');
    let level = 0;
    while (peaks.length > 0 && peaks[peaks.length - 1].level === level) {
      peaks.pop().hash.copy(nodeIn, 1);
      h.copy(nodeIn, 33);
      h = hash('sha256', nodeIn, 'buffer');
      level++;
      if (level > m) return { seq, reason: 'entry ' + seq + ': wrong number of stored Merkle subtree roots' };
      const at = start + 34 + (level - 1) * 32;
      if (h.compare(records, at, at + 32) !== 0) return { seq, reason: 'entry ' + seq + ': stored Merkle subtree root (level ' + level + ') is wrong' };
    }
    if (level !== m) return { seq, reason: 'entry ' + seq + ': wrong number of stored Merkle subtree roots' };
    peaks.push({ level, hash: h });
    for (let r = roots[nextRoot]; r !== undefined && r[0] === seq; r = roots[++nextRoot]) {
      if (rootHex() !== r[1]) {
        const lastGood = nextRoot > 0 ? roots[nextRoot - 1][0] : 0;
        return { seq, reason: 'entries ' + (lastGood + 1) + '..' + seq + ' differ from the signed checkpoint at tree size ' + seq + ' (chain rewritten)' };
      }
    }
  }
  return null;
}
parentPort.on('message', (msg) => {
  if (msg === 'finish') {
    parentPort.postMessage({ done: true, broken });
    return;
  }
  if (broken === null) broken = check(Buffer.from(msg.records), new Uint32Array(msg.offsets));
  parentPort.postMessage({ done: false });
});
`;

const CHUNK_ENTRIES = 4096;
const MAX_CHUNKS_IN_FLIGHT = 4;

/**
 * On a worker thread: hashing (the entry hash, the leaf, the tree: three SHA-256 per entry) is most of
 * verification's work, so it runs on a second core while the reading thread walks LMDB and checks links. The
 * entry hashes are split by seq parity (each needs only its own record and its predecessor's stored hash), which
 * balances the two threads.
 */
export class WorkerRecordChecker implements RecordChecker {
  readonly hashesAll = false;
  readonly #worker: Worker;
  #records = Buffer.allocUnsafe(CHUNK_ENTRIES * 1024);
  #offsets = new Uint32Array(CHUNK_ENTRIES + 1);
  #n = 0;
  #bytes = 0;
  #inFlight = 0;
  #onAck: (() => void) | null = null;
  #onDone: ((broken: ChainBreak | null) => void) | null = null;
  #failure: unknown = null;

  constructor(roots: ReadonlyArray<readonly [number, string]>) {
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { roots } });
    this.#worker.unref();
    this.#worker.on('message', (msg: { done: boolean; broken?: ChainBreak | null }) => {
      if (msg.done) {
        this.#onDone?.(msg.broken ?? null);
        return;
      }
      this.#inFlight--;
      this.#onAck?.();
    });
    this.#worker.on('error', (err) => {
      this.#failure = err;
      this.#onAck?.();
      this.#onDone?.(null);
    });
  }

  add(record: Buffer): void {
    if (this.#bytes + record.length > this.#records.length) {
      const grown = Buffer.allocUnsafe((this.#records.length + record.length) * 2);
      this.#records.copy(grown, 0, 0, this.#bytes);
      this.#records = grown;
    }
    this.#offsets[this.#n] = this.#bytes;
    record.copy(this.#records, this.#bytes);
    this.#bytes += record.length;
    if (++this.#n === CHUNK_ENTRIES) this.#send();
  }

  async ready(): Promise<void> {
    while (this.#inFlight > MAX_CHUNKS_IN_FLIGHT && this.#failure === null) {
      await new Promise<void>((resolve) => (this.#onAck = resolve));
    }
  }

  async finish(): Promise<ChainBreak | null> {
    try {
      this.#send();
      const result = new Promise<ChainBreak | null>((resolve) => (this.#onDone = resolve));
      if (this.#failure === null) this.#worker.postMessage('finish');
      const broken = this.#failure === null ? await result : null;
      if (this.#failure !== null) throw this.#failure;
      return broken;
    } finally {
      await this.#worker.terminate();
    }
  }

  #send(): void {
    if (this.#n === 0) return;
    this.#offsets[this.#n] = this.#bytes;
    // Copies of exactly the used bytes, transferred (not cloned) to the worker.
    const records = this.#records.buffer.slice(this.#records.byteOffset, this.#records.byteOffset + this.#bytes);
    const offsets = this.#offsets.buffer.slice(0, (this.#n + 1) * 4);
    this.#worker.postMessage({ records, offsets }, [records, offsets]);
    this.#inFlight++;
    this.#n = 0;
    this.#bytes = 0;
  }
}
