import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { signBoundary, boundaryPeaks, checkBoundary, type PruneBoundary } from './boundary.js';
import { verifyCheckpointSignature, type CheckpointSigner } from '../merkle/checkpoint.js';
import { chainTail } from '../log/entry-input.js';
import { entryHashOfBytes, GENESIS_PREV_HASH, leafHash } from '../log/hash.js';
import { pushLeaf, rootFromPeaks, type Peak } from '../merkle/merkle.js';
import { checkRecord, recordCanonical, recordHash } from '../log/record-codec.js';
import { committedSize, listCheckpoints, readBoundary, type LedgerDbs } from '../storage/store.js';
import { countersFor } from '../log/tenant-state.js';

export interface PruneLimits {
  /** Only entries whose created_at is before this are old enough. */
  before: Date;
  /** Highest seq that left the ledger (exported, or acknowledged by the control plane). */
  releasedThrough: number;
  /** Entries read per event-loop turn, and deleted per write transaction (default 1,000). */
  chunk?: number;
}

export interface PruneResult {
  tenant_id: string;
  /** The boundary after this run (0 = nothing pruned, ever). */
  pruned_through: number;
  /** Entries deleted by this run. */
  removed: number;
}

/** A prefix that cannot be pruned because it does not verify: pruning it would erase the evidence. */
export class PruneRefused extends Error {
  constructor(tenantId: string, reason: string) {
    super(`ledger retention: tenant ${tenantId} not pruned: ${reason}`);
    this.name = 'PruneRefused';
  }
}

/**
 * Prunes one tenant's oldest entries (docs/ledger.md, "Retention") through P = the largest signed checkpoint size
 * that is at most `releasedThrough`, below the head, and whose entries 1..P are all older than `before`. The prefix
 * is re-verified first (links, hashes, the checkpoint's root), then a signed boundary is written, and only then are
 * the entries, their index keys and counters removed, chunk by chunk: a crash in between leaves the boundary, and the
 * next run deletes what is left below it.
 */
export async function pruneTenant(dbs: LedgerDbs, signer: CheckpointSigner, tenantId: string, limits: PruneLimits): Promise<PruneResult> {
  const chunk = limits.chunk ?? 1000;
  const current = readBoundary(dbs, tenantId);
  const from = current?.pruned_through ?? 0;
  if (current) {
    const bad = checkBoundary(current, tenantId, dbs.checkpoints.get([tenantId, from]), signer.publicKey);
    if (bad) throw new PruneRefused(tenantId, bad);
  }
  // The head stays: appends are conditional on their predecessor's record.
  const limit = Math.min(limits.releasedThrough, committedSize(dbs, tenantId) - 1);
  const target = limit > from ? await findTarget(dbs, signer, tenantId, current, limit, limits.before.getTime(), chunk) : null;
  if (target) await dbs.retention.put([tenantId, 'boundary'], target);
  const through = target?.pruned_through ?? from;
  return { tenant_id: tenantId, pruned_through: through, removed: through > 0 ? await removeThrough(dbs, tenantId, through, chunk) : 0 };
}

/** Walks and re-verifies entries past the current boundary; the boundary at the last checkpoint the gates allow. */
async function findTarget(
  dbs: LedgerDbs,
  signer: CheckpointSigner,
  tenantId: string,
  current: PruneBoundary | undefined,
  limit: number,
  before: number,
  chunk: number,
): Promise<PruneBoundary | null> {
  const from = current?.pruned_through ?? 0;
  const sizes = new Map<number, string>();
  for (const cp of listCheckpoints(dbs, tenantId, from + 1)) {
    if (cp.tree_size > limit) break;
    if (verifyCheckpointSignature(cp, signer.publicKey) && cp.tenant_id === tenantId) sizes.set(cp.tree_size, cp.root_hash);
  }
  if (sizes.size === 0) return null;
  const last = Math.max(...sizes.keys());
  const tenantJson = JSON.stringify(tenantId);
  const peaks: Peak[] = current ? boundaryPeaks(current) : [];
  let prev = current?.entry_hash ?? GENESIS_PREV_HASH;
  let seq = from;
  let found: PruneBoundary | null = null;
  for (const { key, value } of dbs.entries.getRange({ start: [tenantId, from + 1], end: [tenantId, last + 1] })) {
    seq++;
    if ((key as [string, number])[1] !== seq) throw new PruneRefused(tenantId, `entry ${seq} is missing`);
    checkRecord(value);
    const canonical = recordCanonical(value);
    const tail = Buffer.from(chainTail(prev, seq, tenantJson));
    const hash = entryHashOfBytes(prev, canonical);
    if (canonical.length < tail.length || Buffer.compare(canonical.subarray(canonical.length - tail.length), tail) !== 0 || hash.compare(recordHash(value)) !== 0) {
      throw new PruneRefused(tenantId, `entry ${seq} does not verify (run verify)`);
    }
    if (!(createdAt(canonical) < before)) break;
    const frontier = sizes.has(seq) ? peaks.map((p) => p.hash.toString('hex')) : null;
    pushLeaf(peaks, leafHash(hash));
    prev = hash.toString('hex');
    if (frontier) {
      const root = rootFromPeaks(peaks).toString('hex');
      if (root !== sizes.get(seq)) throw new PruneRefused(tenantId, `entries up to ${seq} differ from the signed checkpoint at that size (run verify)`);
      found = signBoundary(signer, { tenant_id: tenantId, pruned_through: seq, entry_hash: prev, frontier, root_hash: root, timestamp: new Date().toISOString() });
    }
    if (seq % chunk === 0) await yieldToLoop();
  }
  return found;
}

/** created_at in ms: RFC 8785 sorts it first, so the text starts `{"created_at":"…"`. NaN when unreadable. */
function createdAt(canonical: Uint8Array): number {
  const head = Buffer.from(canonical.subarray(0, 80)).toString('latin1');
  const match = /^\{"created_at":"([^"]+)"/.exec(head);
  return match ? Date.parse(match[1]!) : Number.NaN;
}

/** Deletes every record at or below `through` with its index keys, counting each in its counters' pruned tallies. */
async function removeThrough(dbs: LedgerDbs, tenantId: string, through: number, chunk: number): Promise<number> {
  let removed = 0;
  for (;;) {
    const seqs: number[] = [];
    for (const key of dbs.entries.getKeys({ start: [tenantId, 0], end: [tenantId, through + 1], limit: chunk })) seqs.push((key as [string, number])[1]);
    if (seqs.length === 0) return removed;
    await dbs.root.transaction(() => {
      const pruned = new Map<string, { key: (string | number)[]; n: number }>();
      for (const seq of seqs) {
        const record = dbs.entries.get([tenantId, seq]);
        if (record === undefined) continue;
        const { eventType, agentId } = indexedNames(record);
        dbs.entries.remove([tenantId, seq]);
        dbs.index.remove([tenantId, 't', eventType, seq]);
        if (agentId !== null) {
          dbs.index.remove([tenantId, 'a', agentId, seq]); // only in ledgers written by earlier versions
          dbs.index.remove([tenantId, 'at', agentId, eventType, seq]);
        }
        for (const bump of countersFor(tenantId, { agentId, eventType })) {
          const tally = pruned.get(bump.id);
          if (tally) tally.n++;
          else pruned.set(bump.id, { key: [tenantId, 'p', ...bump.key.slice(1)], n: 1 });
        }
        removed++;
      }
      for (const { key, n } of pruned.values()) {
        const before = dbs.retention.get(key);
        dbs.retention.put(key, (typeof before === 'number' ? before : 0) + n);
      }
    });
    if (seqs.length < chunk) return removed;
    await yieldToLoop();
  }
}

/** The names an entry was indexed under (chain-writer.ts): its event_type, and metadata.agent_id when a string. */
function indexedNames(record: Buffer): { eventType: string; agentId: string | null } {
  const entry = JSON.parse(Buffer.from(recordCanonical(record)).toString('utf8')) as { event_type: string; metadata: { agent_id?: unknown } };
  return { eventType: entry.event_type, agentId: typeof entry.metadata.agent_id === 'string' ? entry.metadata.agent_id : null };
}
