import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../platform/start-module-worker.js';
import { entryHashOfBytes, leafHash } from '../log/hash.js';
import { pushLeaf, rootFromPeaks, type Peak } from '../merkle/merkle.js';
import { recordCanonical, recordHash, recordNode, recordNodeCount } from '../log/record-codec.js';
import type { RecordCheckReply, RecordCheckRequest, RecordCheckWorkerData } from './record-check-worker.js';

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

/** Where checking starts: before seq 1 (genesis), or at a pruning boundary (its entry hash and tree peaks). */
export interface ChainStart {
  /** Last seq before the first record handed in. */
  seq: number;
  /** Hash of entry `seq` (hex); genesis zeros when seq is 0. */
  prev: string;
  peaks: Peak[];
}

/** In the caller's thread: for short chains, where a worker's start-up costs more than it saves. */
export class InlineRecordChecker implements RecordChecker {
  readonly hashesAll = true;
  readonly #roots: ReadonlyArray<readonly [number, string]>;
  readonly #peaks: Peak[];
  #prev: string;
  #seq: number;
  #nextRoot = 0;
  #broken: ChainBreak | null = null;
  readonly #startSeq: number;

  constructor(roots: ReadonlyArray<readonly [number, string]>, start: ChainStart) {
    this.#roots = roots;
    this.#startSeq = start.seq;
    this.#peaks = start.peaks.map((p) => ({ level: p.level, hash: Buffer.from(p.hash) }));
    this.#prev = start.prev;
    this.#seq = start.seq;
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
        const lastGood = this.#nextRoot > 0 ? this.#roots[this.#nextRoot - 1]![0] : this.#startSeq;
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

// The worker's module, resolved once: a compiled file built, its TypeScript source under the tests.
const WORKER_MODULE = new URL('./record-check-worker.js', import.meta.url);
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

  constructor(roots: ReadonlyArray<readonly [number, string]>, start: ChainStart) {
    const from = { seq: start.seq, prev: start.prev, peaks: start.peaks.map((p) => [p.level, p.hash.toString('hex')] as const) };
    this.#worker = startModuleWorker(WORKER_MODULE, { workerData: { roots, start: from } satisfies RecordCheckWorkerData });
    this.#worker.unref();
    this.#worker.on('message', (msg: RecordCheckReply) => {
      if (msg.done) {
        this.#onDone?.(msg.broken);
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
      if (this.#failure === null) this.#worker.postMessage('finish' satisfies RecordCheckRequest);
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
    this.#worker.postMessage({ records, offsets } satisfies RecordCheckRequest, [records, offsets]);
    this.#inFlight++;
    this.#n = 0;
    this.#bytes = 0;
  }
}
