import { Worker } from 'node:worker_threads';
import { leafHash } from './hash.js';
import { pushLeaf, rootFromPeaks, type Peak } from './merkle.js';
import { recordNode, recordNodeCount } from './record-codec.js';

/** Where the recomputed Merkle tree disagrees with what is stored or signed. */
export interface TreeBreak {
  seq: number;
  reason: string;
}

/**
 * Recomputes a tenant's RFC 9162 tree from its entry hashes, in seq order from 1, and compares it with the subtree
 * roots stored in each record and with each checkpoint's signed root (`roots`: [tree_size, root hex], ascending).
 */
export interface TreeChecker {
  add(entryHash: Buffer, record: Buffer): void;
  /** Resolves when the checker can take more (bounds the memory queued for a worker). */
  ready(): Promise<void>;
  finish(): Promise<TreeBreak | null>;
}

function checkpointBreak(roots: ReadonlyArray<readonly [number, string]>, index: number): TreeBreak {
  const size = roots[index]![0];
  const lastGood = index > 0 ? roots[index - 1]![0] : 0;
  return { seq: size, reason: `entries ${lastGood + 1}..${size} differ from the signed checkpoint at tree size ${size} (chain rewritten)` };
}

/** In the caller's thread: for short chains, where a worker's start-up costs more than it saves. */
export class InlineTreeChecker implements TreeChecker {
  readonly #roots: ReadonlyArray<readonly [number, string]>;
  readonly #peaks: Peak[] = [];
  #seq = 0;
  #nextRoot = 0;
  #broken: TreeBreak | null = null;

  constructor(roots: ReadonlyArray<readonly [number, string]>) {
    this.#roots = roots;
  }

  add(entryHash: Buffer, record: Buffer): void {
    if (this.#broken) return;
    const seq = ++this.#seq;
    const nodes = pushLeaf(this.#peaks, leafHash(entryHash));
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
        this.#broken = checkpointBreak(this.#roots, this.#nextRoot);
        return;
      }
    }
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  finish(): Promise<TreeBreak | null> {
    return Promise.resolve(this.#broken);
  }
}

// The worker's code, as plain JS evaluated by `new Worker(…, { eval: true })`: it works the same from the TS
// sources (tests), from dist/, and under any loader, with no separate file to ship. It mirrors InlineTreeChecker;
// the tamper tests run against both.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { hash } = require('node:crypto');
const roots = workerData.roots;
const peaks = [];
const leafIn = Buffer.alloc(33);
const nodeIn = Buffer.alloc(65);
nodeIn[0] = 1;
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
function check(hashes, counts, nodes) {
  let nodeAt = 0;
  for (let i = 0; i < counts.length; i++) {
    seq++;
    hashes.copy(leafIn, 1, i * 32, i * 32 + 32);
    let h = hash('sha256', leafIn, 'buffer');
    let level = 0;
    while (peaks.length > 0 && peaks[peaks.length - 1].level === level) {
      peaks.pop().hash.copy(nodeIn, 1);
      h.copy(nodeIn, 33);
      h = hash('sha256', nodeIn, 'buffer');
      level++;
      if (level > counts[i]) return { seq, reason: 'entry ' + seq + ': wrong number of stored Merkle subtree roots' };
      const at = nodeAt + (level - 1) * 32;
      if (h.compare(nodes, at, at + 32) !== 0) return { seq, reason: 'entry ' + seq + ': stored Merkle subtree root (level ' + level + ') is wrong' };
    }
    if (level !== counts[i]) return { seq, reason: 'entry ' + seq + ': wrong number of stored Merkle subtree roots' };
    nodeAt += counts[i] * 32;
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
  if (broken === null) broken = check(Buffer.from(msg.hashes), new Uint8Array(msg.counts), Buffer.from(msg.nodes));
  parentPort.postMessage({ done: false });
});
`;

const CHUNK = 8192;
const MAX_CHUNKS_IN_FLIGHT = 4;

/**
 * On a worker thread: the tree costs two SHA-256 per entry against the chain's one, so on a second core it runs
 * alongside the chain check instead of after it (verification is ~2x faster on long chains).
 */
export class WorkerTreeChecker implements TreeChecker {
  readonly #worker: Worker;
  #hashes = Buffer.allocUnsafe(CHUNK * 32);
  #counts = new Uint8Array(CHUNK);
  #nodes = Buffer.allocUnsafe(CHUNK * 32 * 2);
  #n = 0;
  #nodeBytes = 0;
  #inFlight = 0;
  #onAck: (() => void) | null = null;
  #onDone: ((broken: TreeBreak | null) => void) | null = null;
  #failure: unknown = null;

  constructor(roots: ReadonlyArray<readonly [number, string]>) {
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { roots } });
    this.#worker.unref();
    this.#worker.on('message', (msg: { done: boolean; broken?: TreeBreak | null }) => {
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

  async ready(): Promise<void> {
    while (this.#inFlight > MAX_CHUNKS_IN_FLIGHT && this.#failure === null) {
      await new Promise<void>((resolve) => (this.#onAck = resolve));
    }
  }

  add(entryHash: Buffer, record: Buffer): void {
    entryHash.copy(this.#hashes, this.#n * 32);
    const count = recordNodeCount(record);
    this.#counts[this.#n] = count;
    if (count > 0) {
      const bytes = count * 32;
      if (this.#nodeBytes + bytes > this.#nodes.length) {
        const grown = Buffer.allocUnsafe((this.#nodes.length + bytes) * 2);
        this.#nodes.copy(grown, 0, 0, this.#nodeBytes);
        this.#nodes = grown;
      }
      // The stored roots sit right after the 34-byte record header (record-codec.ts).
      record.copy(this.#nodes, this.#nodeBytes, 34, 34 + bytes);
      this.#nodeBytes += bytes;
    }
    if (++this.#n === CHUNK) this.#send();
  }

  async finish(): Promise<TreeBreak | null> {
    try {
      this.#send();
      const result = new Promise<TreeBreak | null>((resolve) => (this.#onDone = resolve));
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
    // Copies of exactly the used bytes, transferred (not cloned) to the worker.
    const hashes = this.#hashes.buffer.slice(this.#hashes.byteOffset, this.#hashes.byteOffset + this.#n * 32);
    const counts = this.#counts.buffer.slice(0, this.#n);
    const nodes = this.#nodes.buffer.slice(this.#nodes.byteOffset, this.#nodes.byteOffset + this.#nodeBytes);
    this.#worker.postMessage({ hashes, counts, nodes }, [hashes, counts, nodes]);
    this.#inFlight++;
    this.#n = 0;
    this.#nodeBytes = 0;
  }
}
