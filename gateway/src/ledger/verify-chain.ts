import { hash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { verifyCheckpointSignature, type LedgerPublicKey } from './checkpoint.js';
import { chainTail } from './entry-input.js';
import { GENESIS_PREV_HASH } from './hash.js';
import { checkRecord, completedLevels, recordNodeCount } from './record-codec.js';
import { committedSize, listCheckpoints, MAX_SEQ, type LedgerDbs } from './store.js';
import { InlineTreeChecker, WorkerTreeChecker, type TreeBreak, type TreeChecker } from './tree-check.js';

export interface VerifyReport {
  ok: boolean;
  /** Entries that checked out, from seq 1 up to the first break. */
  checked: number;
  /** First seq where the chain breaks (changed, missing or moved entry, or a checkpoint it contradicts), or null. */
  firstBrokenSeq: number | null;
  reason: string | null;
  /** Size the chain should have (the committed counter). */
  expectedSize: number;
  /** Checkpoints whose signature and root matched. */
  checkpointsChecked: number;
}

export interface VerifyOptions {
  /** Chains at least this long recompute the Merkle tree on a worker thread (default 16,384). */
  workerThreshold?: number;
}

const YIELD_EVERY = 16_384;
const RECORD_HEADER = 34; // version, hash, node count (record-codec.ts)
// Fixed parts of the canonical tail (entry-input.ts chainTail).
const PREV_KEY = Buffer.from(',"prev_hash":"');
const SEQ_KEY = Buffer.from('","seq":');

/**
 * Recomputes a tenant's chain from seq 1: each record's stored bytes re-hashed with the previous hash, its tail
 * (prev_hash, seq, tenant_id) compared with what the chain dictates; meanwhile the Merkle tree is rebuilt from the
 * recomputed hashes and compared with the stored subtree roots and every checkpoint (whose signatures are checked
 * first). The earliest break of any kind is reported.
 */
export async function verifyChain(dbs: LedgerDbs, tenantId: string, publicKey: LedgerPublicKey, options: VerifyOptions = {}): Promise<VerifyReport> {
  const expectedSize = committedSize(dbs, tenantId);
  const checkpoints = listCheckpoints(dbs, tenantId);
  const breaks: TreeBreak[] = [];
  for (const cp of checkpoints) {
    if (!verifyCheckpointSignature(cp, publicKey) || cp.tenant_id !== tenantId) {
      breaks.push({ seq: cp.tree_size, reason: `checkpoint at tree size ${cp.tree_size} has a bad signature` });
      break;
    }
  }
  const roots = checkpoints.map((cp) => [cp.tree_size, cp.root_hash] as const);
  const tree: TreeChecker = expectedSize >= (options.workerThreshold ?? 16_384) ? new WorkerTreeChecker(roots) : new InlineTreeChecker(roots);
  let chainBreak: TreeBreak | null;
  try {
    chainBreak = await checkChain(dbs, tenantId, tree, expectedSize);
  } finally {
    const treeBreak = await tree.finish(); // also stops the worker when the chain check threw
    if (treeBreak) breaks.push(treeBreak);
  }
  if (chainBreak) breaks.push(chainBreak);

  const first = breaks.reduce<TreeBreak | null>((a, b) => (a === null || b.seq < a.seq ? b : a), null);
  const checked = first ? first.seq - 1 : expectedSize;
  if (!first) {
    const orphan = checkpoints.find((cp) => cp.tree_size > checked);
    if (orphan) {
      const seq = checked + 1;
      const reason = `checkpoint at tree size ${orphan.tree_size} is past the end of the chain (${checked}): entries were removed`;
      return { ok: false, checked, firstBrokenSeq: seq, reason, expectedSize, checkpointsChecked: checkpoints.length - 1 };
    }
  }
  return {
    ok: first === null,
    checked,
    firstBrokenSeq: first?.seq ?? null,
    reason: first?.reason ?? null,
    expectedSize,
    checkpointsChecked: checkpoints.filter((cp) => cp.tree_size <= checked).length,
  };
}

/** The hash chain itself; feeds each recomputed hash to the tree checker. Returns the first break, if any. */
async function checkChain(dbs: LedgerDbs, tenantId: string, tree: TreeChecker, expectedSize: number): Promise<TreeBreak | null> {
  const tenantJson = JSON.stringify(tenantId);
  let prev = GENESIS_PREV_HASH;
  let seq = 0;
  // prev_hash ‖ canonical bytes assembled in one reused buffer, and the expected tail in another: no per-entry
  // allocations besides the hash itself.
  let input = Buffer.allocUnsafe(64 * 1024);
  const tail = Buffer.allocUnsafe(32); // seq digits
  const suffix = Buffer.from(chainTail(GENESIS_PREV_HASH, 0, tenantJson).split('"seq":0')[1]!); // ,"tenant_id":"…"}
  for (const { key, value } of dbs.entries.getRange({ start: [tenantId, 1], end: [tenantId, MAX_SEQ] })) {
    seq++;
    const keySeq = (key as [string, number])[1];
    if (keySeq !== seq) return { seq, reason: `entry ${seq} is missing (next stored entry is ${keySeq})` };
    try {
      checkRecord(value);
    } catch {
      return { seq, reason: `entry ${seq} is not a valid ledger record` };
    }
    if (recordNodeCount(value) !== completedLevels(seq)) return { seq, reason: `entry ${seq}: wrong number of stored Merkle subtree roots` };
    const textAt = RECORD_HEADER + recordNodeCount(value) * 32;
    const needed = 64 + value.length - textAt;
    if (input.length < needed) input = Buffer.allocUnsafe(needed * 2);
    input.write(prev, 0, 'latin1');
    value.copy(input, 64, textAt);
    // The canonical tail must read `,"prev_hash":"<prev>","seq":<seq>,"tenant_id":<tenant>}`: compared piecewise in
    // place (prev is already at input[0, 64)), which is measurably cheaper than building the string per entry.
    const digits = tail.write(String(seq), 0, 'latin1');
    const seqAt = needed - suffix.length - digits;
    const prevAt = seqAt - SEQ_KEY.length - 64;
    if (
      prevAt - PREV_KEY.length < 64 ||
      input.compare(suffix, 0, suffix.length, needed - suffix.length, needed) !== 0 ||
      input.compare(tail, 0, digits, seqAt, seqAt + digits) !== 0 ||
      input.compare(SEQ_KEY, 0, SEQ_KEY.length, seqAt - SEQ_KEY.length, seqAt) !== 0 ||
      input.compare(input, 0, 64, prevAt, prevAt + 64) !== 0 ||
      input.compare(PREV_KEY, 0, PREV_KEY.length, prevAt - PREV_KEY.length, prevAt) !== 0
    ) {
      return { seq, reason: `entry ${seq} does not carry seq ${seq}, tenant ${tenantId} and prev_hash ${prev} (moved, or changed)` };
    }
    const computed = hash('sha256', input.subarray(0, needed), 'buffer');
    if (computed.compare(value, 1, 33) !== 0) return { seq, reason: `entry ${seq}: stored hash does not match its content` };
    tree.add(computed, value);
    prev = computed.toString('hex');
    if (seq % YIELD_EVERY === 0) {
      await tree.ready();
      await yieldToLoop();
    }
  }
  if (seq < expectedSize) return { seq: seq + 1, reason: `entry ${seq + 1} is missing (the chain should hold ${expectedSize})` };
  return null;
}
