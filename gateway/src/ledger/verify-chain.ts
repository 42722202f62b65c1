import { hash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { verifyCheckpointSignature, type LedgerPublicKey } from './checkpoint.js';
import { chainTail } from './entry-input.js';
import { GENESIS_PREV_HASH, leafHash } from './hash.js';
import { pushLeaf, rootFromPeaks, type Peak } from './merkle.js';
import { checkRecord, completedLevels, recordCanonical, recordHash, recordNode, recordNodeCount } from './record-codec.js';
import { committedSize, listCheckpoints, MAX_SEQ, type LedgerDbs } from './store.js';

export interface VerifyReport {
  ok: boolean;
  /** Entries whose hash, link and position checked out, from seq 1 without a break. */
  checked: number;
  /** First seq where the chain breaks (changed, missing or moved entry), or null. */
  firstBrokenSeq: number | null;
  reason: string | null;
  /** Size the chain should have (the committed counter). */
  expectedSize: number;
  checkpointsChecked: number;
}

const YIELD_EVERY = 16_384;

/**
 * Recomputes a tenant's chain from seq 1: each record's stored bytes re-hashed with the previous hash, its tail
 * (prev_hash, seq, tenant_id) compared with what the chain dictates, its stored Merkle subtree roots recomputed,
 * and every checkpoint's root and signature compared with the tree at its size.
 */
export async function verifyChain(dbs: LedgerDbs, tenantId: string, publicKey: LedgerPublicKey): Promise<VerifyReport> {
  const expectedSize = committedSize(dbs, tenantId);
  const checkpoints = listCheckpoints(dbs, tenantId);
  const tenantJson = JSON.stringify(tenantId);
  const peaks: Peak[] = [];
  let prev = GENESIS_PREV_HASH;
  let checked = 0;
  let nextCp = 0;
  let checkpointsChecked = 0;
  // prev_hash ‖ canonical bytes, assembled in one reused buffer rather than a string per entry.
  let scratch = Buffer.allocUnsafe(64 * 1024);
  const report = (seq: number | null, reason: string | null): VerifyReport => ({
    ok: seq === null,
    checked,
    firstBrokenSeq: seq,
    reason,
    expectedSize,
    checkpointsChecked,
  });

  for (const { key, value } of dbs.entries.getRange({ start: [tenantId, 1], end: [tenantId, MAX_SEQ] })) {
    const seq = checked + 1;
    const keySeq = (key as [string, number])[1];
    if (keySeq !== seq) return report(seq, `entry ${seq} is missing (next stored entry is ${keySeq})`);
    try {
      checkRecord(value);
    } catch {
      return report(seq, `entry ${seq} is not a valid ledger record`);
    }
    const canonical = recordCanonical(value);
    const tail = Buffer.from(chainTail(prev, seq, tenantJson));
    if (canonical.length < tail.length || Buffer.compare(canonical.subarray(canonical.length - tail.length), tail) !== 0) {
      return report(seq, `entry ${seq} does not carry seq ${seq}, tenant ${tenantId} and prev_hash ${prev} (moved, or changed)`);
    }
    const needed = 64 + canonical.length;
    if (scratch.length < needed) scratch = Buffer.allocUnsafe(needed * 2);
    scratch.write(prev, 0, 'latin1');
    scratch.set(canonical, 64);
    const computed = hash('sha256', scratch.subarray(0, needed), 'buffer');
    if (Buffer.compare(computed, recordHash(value)) !== 0) return report(seq, `entry ${seq}: stored hash does not match its content`);
    const nodes = pushLeaf(peaks, leafHash(computed));
    if (recordNodeCount(value) !== completedLevels(seq)) return report(seq, `entry ${seq}: wrong number of Merkle subtree roots`);
    for (let level = 1; level <= nodes.length; level++) {
      if (Buffer.compare(nodes[level - 1]!, recordNode(value, level)) !== 0) return report(seq, `entry ${seq}: stored Merkle subtree root (level ${level}) is wrong`);
    }
    prev = computed.toString('hex');
    checked = seq;
    for (let cp = checkpoints[nextCp]; cp !== undefined && cp.tree_size === seq; cp = checkpoints[++nextCp]) {
      if (!verifyCheckpointSignature(cp, publicKey)) return report(seq, `checkpoint at tree size ${seq} has a bad signature`);
      if (cp.root_hash !== rootFromPeaks(peaks).toString('hex')) {
        const lastGood = nextCp > 0 ? checkpoints[nextCp - 1]!.tree_size : 0;
        return report(seq, `entries ${lastGood + 1}..${seq} differ from the signed checkpoint at tree size ${seq} (chain rewritten)`);
      }
      checkpointsChecked++;
    }
    if (seq % YIELD_EVERY === 0) await yieldToLoop();
  }
  if (checked < expectedSize) return report(checked + 1, `entry ${checked + 1} is missing (the chain should hold ${expectedSize})`);
  const orphan = checkpoints[nextCp];
  if (orphan) return report(checked + 1, `checkpoint at tree size ${orphan.tree_size} is past the end of the chain (${checked}): entries were removed`);
  return report(null, null);
}
