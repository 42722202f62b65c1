import type { X509Certificate } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { boundaryPeaks, checkBoundary } from './boundary.js';
import { checkpointSigningInput, verifyCheckpointSignature, type Checkpoint, type LedgerPublicKey } from '../merkle/checkpoint.js';
import { chainTail } from '../log/entry-input.js';
import { entryHashOfBytes, GENESIS_PREV_HASH } from '../log/hash.js';
import { checkRecord, completedLevels, plainRecord, recordNodeCount } from '../log/record-codec.js';
import { committedSize, listCheckpoints, MAX_SEQ, readBoundary, type LedgerDbs } from '../storage/store.js';
import { checkTimestampToken } from '../merkle/timestamp-token.js';
import { InlineRecordChecker, WorkerRecordChecker, type ChainBreak, type ChainStart, type RecordChecker } from './record-check.js';

export interface VerifyReport {
  ok: boolean;
  /** Entries that checked out, from the first one held (seq 1, or the one after the pruning boundary) up to the first break. */
  checked: number;
  /**
   * Entries 1..prunedThrough were removed by retention (0 = none): what remains was verified from the signed pruning
   * boundary, which must match the signed checkpoint at that size; checkpoints below it are signature-checked only.
   */
  prunedThrough: number;
  /** First seq where the chain breaks (changed, missing or moved entry, or a checkpoint it contradicts), or null. */
  firstBrokenSeq: number | null;
  reason: string | null;
  /** Size the chain should have (the committed counter). */
  expectedSize: number;
  /** Checkpoints whose signature and root matched. */
  checkpointsChecked: number;
  /** Checkpoints whose RFC 3161 time-stamp token checked out (docs/ledger.md, "Anchoring"). */
  anchorsChecked: number;
}

export interface VerifyOptions {
  /** Chains at least this long are hashed on a worker thread (default 16,384). */
  workerThreshold?: number;
  /** Time-stamp tokens must be signed by this TSA certificate or one it issued (ANCHOR_TSA_CERT). */
  tsaCert?: X509Certificate | null;
}

const YIELD_EVERY = 16_384;
// Fixed parts of the canonical tail (entry-input.ts chainTail).
const PREV_KEY = Buffer.from(',"prev_hash":"');
const SEQ_KEY = Buffer.from('","seq":');

/**
 * Recomputes a tenant's chain from seq 1 and reports the earliest break of any kind. This thread walks LMDB and
 * checks position and links: keys contiguous from 1, and each record's canonical tail carrying its seq, its tenant
 * and the previous record's stored hash. A RecordChecker (a worker thread for long chains) re-hashes every record
 * from its bytes against its stored hash, rebuilds the Merkle tree against the stored subtree roots, and compares
 * every checkpoint's root; checkpoint signatures are checked first. Together: each stored hash is the hash of its
 * content, and each content names the previous stored hash, which is the chain.
 */
export async function verifyChain(dbs: LedgerDbs, tenantId: string, publicKey: LedgerPublicKey, options: VerifyOptions = {}): Promise<VerifyReport> {
  const expectedSize = committedSize(dbs, tenantId);
  const checkpoints = listCheckpoints(dbs, tenantId);
  // After retention, the chain starts at the boundary, which must be the key's and agree with the checkpoint at its size.
  const boundary = readBoundary(dbs, tenantId);
  const pruned = boundary?.pruned_through ?? 0;
  if (boundary) {
    const bad = checkBoundary(boundary, tenantId, checkpoints.find((cp) => cp.tree_size === pruned), publicKey);
    if (bad) return { ok: false, checked: 0, prunedThrough: pruned, firstBrokenSeq: pruned + 1, reason: bad, expectedSize, checkpointsChecked: 0, anchorsChecked: 0 };
  }
  const start: ChainStart = boundary ? { seq: pruned, prev: boundary.entry_hash, peaks: boundaryPeaks(boundary) } : { seq: 0, prev: GENESIS_PREV_HASH, peaks: [] };
  const breaks: ChainBreak[] = [];
  for (const cp of checkpoints) {
    if (!verifyCheckpointSignature(cp, publicKey) || cp.tenant_id !== tenantId) {
      breaks.push({ seq: cp.tree_size, reason: `checkpoint at tree size ${cp.tree_size} has a bad signature` });
      break;
    }
  }
  const anchors = await checkAnchors(dbs, tenantId, checkpoints, options.tsaCert ?? null);
  if (anchors.broken) breaks.push(anchors.broken);
  const roots = checkpoints.filter((cp) => cp.tree_size > pruned).map((cp) => [cp.tree_size, cp.root_hash] as const);
  const checker: RecordChecker =
    expectedSize - pruned >= (options.workerThreshold ?? 16_384) ? new WorkerRecordChecker(roots, start) : new InlineRecordChecker(roots, start);
  let linkBreak: ChainBreak | null;
  try {
    linkBreak = await checkLinks(dbs, tenantId, checker, expectedSize, start);
  } finally {
    const hashBreak = await checker.finish(); // also stops the worker when the walk threw
    if (hashBreak) breaks.push(hashBreak);
  }
  if (linkBreak) breaks.push(linkBreak);

  const first = breaks.reduce<ChainBreak | null>((a, b) => (a === null || b.seq < a.seq ? b : a), null);
  const through = first ? first.seq - 1 : expectedSize; // last seq that checked out
  const checked = through - pruned;
  if (!first) {
    const orphan = checkpoints.find((cp) => cp.tree_size > through);
    if (orphan) {
      const reason = `checkpoint at tree size ${orphan.tree_size} is past the end of the chain (${through}): entries were removed`;
      return { ok: false, checked, prunedThrough: pruned, firstBrokenSeq: through + 1, reason, expectedSize, checkpointsChecked: checkpoints.length - 1, anchorsChecked: anchors.checked };
    }
  }
  return {
    ok: first === null,
    checked,
    prunedThrough: pruned,
    firstBrokenSeq: first?.seq ?? null,
    reason: first?.reason ?? null,
    expectedSize,
    checkpointsChecked: checkpoints.filter((cp) => cp.tree_size <= through).length,
    anchorsChecked: anchors.checked,
  };
}

/**
 * Each stored time-stamp token against its checkpoint: imprint = SHA-256 of the checkpoint's signed bytes, the stored
 * nonce, the TSA's signature and certificate. Returns the tokens that checked out and the first that did not.
 */
async function checkAnchors(dbs: LedgerDbs, tenantId: string, checkpoints: Checkpoint[], tsaCert: X509Certificate | null): Promise<{ checked: number; broken: ChainBreak | null }> {
  let checked = 0;
  for (const cp of checkpoints) {
    const anchor = dbs.anchors.get([tenantId, cp.tree_size]);
    if (anchor === undefined) continue;
    let input: Buffer;
    try {
      input = checkpointSigningInput(cp);
    } catch {
      continue; // a damaged checkpoint: its signature check already reports it
    }
    const check = await checkTimestampToken(Buffer.from(String(anchor.token), 'base64'), input, String(anchor.nonce), tsaCert);
    if (!check.ok) return { checked, broken: { seq: cp.tree_size, reason: `checkpoint at tree size ${cp.tree_size}: its RFC 3161 time-stamp token ${check.reason}` } };
    checked++;
  }
  return { checked, broken: null };
}

/** Position and links; hands each record to the checker. Returns the first break it sees itself, if any. */
async function checkLinks(dbs: LedgerDbs, tenantId: string, checker: RecordChecker, expectedSize: number, start: ChainStart): Promise<ChainBreak | null> {
  const suffix = Buffer.from(chainTail(GENESIS_PREV_HASH, 0, JSON.stringify(tenantId)).split('"seq":0')[1]!); // ,"tenant_id":"…"}
  const prev = Buffer.from(start.prev, 'latin1'); // previous record's stored hash, as the ASCII hex its successor names
  const digits = Buffer.allocUnsafe(32);
  let seq = start.seq;
  for (const { key, value: stored } of dbs.entries.getRange({ start: [tenantId, seq + 1], end: [tenantId, MAX_SEQ] })) {
    seq++;
    const keySeq = (key as [string, number])[1];
    if (keySeq !== seq) return { seq, reason: `entry ${seq} is missing (next stored entry is ${keySeq})` };
    let value: Buffer;
    try {
      checkRecord(stored);
      value = plainRecord(stored); // a compressed text expanded once, for the tail check here and the checker's hash
    } catch {
      return { seq, reason: `entry ${seq} is not a valid ledger record` };
    }
    const m = recordNodeCount(value);
    if (m !== completedLevels(seq)) return { seq, reason: `entry ${seq}: wrong number of stored Merkle subtree roots` };
    // The tail must read `,"prev_hash":"<prev>","seq":<seq>,"tenant_id":<tenant>}`; compared piecewise in place.
    const end = value.length;
    const digitCount = digits.write(String(seq), 0, 'latin1');
    const seqAt = end - suffix.length - digitCount;
    const prevAt = seqAt - SEQ_KEY.length - 64;
    if (
      prevAt - PREV_KEY.length < 34 + m * 32 ||
      value.compare(suffix, 0, suffix.length, end - suffix.length, end) !== 0 ||
      value.compare(digits, 0, digitCount, seqAt, seqAt + digitCount) !== 0 ||
      value.compare(SEQ_KEY, 0, SEQ_KEY.length, seqAt - SEQ_KEY.length, seqAt) !== 0 ||
      value.compare(prev, 0, 64, prevAt, prevAt + 64) !== 0 ||
      value.compare(PREV_KEY, 0, PREV_KEY.length, prevAt - PREV_KEY.length, prevAt) !== 0
    ) {
      return { seq, reason: `entry ${seq} does not carry seq ${seq}, tenant ${tenantId} and prev_hash ${prev.toString('latin1')} (moved, or changed)` };
    }
    if (!checker.hashesAll && seq % 2 === 1) {
      const canonical = value.subarray(34 + m * 32);
      if (entryHashOfBytes(prev.toString('latin1'), canonical).compare(value, 1, 33) !== 0) {
        return { seq, reason: `entry ${seq}: stored hash does not match its content` };
      }
    }
    checker.add(value);
    prev.write(value.toString('hex', 1, 33), 0, 'latin1');
    if (seq % YIELD_EVERY === 0) {
      await checker.ready();
      await yieldToLoop();
    }
  }
  if (seq < expectedSize) return { seq: seq + 1, reason: `entry ${seq + 1} is missing (the chain should hold ${expectedSize})` };
  return null;
}
