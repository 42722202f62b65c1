import { LedgerError } from '../errors.js';
import { GENESIS_PREV_HASH } from './hash.js';
import { peaksOf, type Peak } from '../merkle/merkle.js';
import type { PreparedKeys } from './entry-input.js';
import { committedSize, lastRecord, latestCheckpoint, subtreeReader, type LedgerDbs } from '../storage/store.js';
import { recordHash } from './record-codec.js';

/**
 * A tenant's chain head as the single writer sees it. After open it is authoritative: seq and prev_hash are
 * assigned from it synchronously, so concurrent appends can never fork the chain; it runs ahead of disk by the
 * batches still being written. A failed write marks it `failed`, and the next append reloads it from disk.
 */
export class TenantState {
  readonly tenantId: string;
  /** tenant_id as JSON (RFC 8785 strings are JSON.stringify's), spliced into every entry's canonical tail. */
  readonly tenantJson: string;
  /** tenant_id as UTF-8: the order its ledger keys sort in (chain-writer.ts, MDB_APPEND). */
  readonly tenantUtf8: Buffer;
  size: number;
  headHash: string;
  readonly peaks: Peak[];
  /** Counter values by key ("a\0agent", "t\0type", "at\0agent\0type"), loaded on first use. */
  readonly counts = new Map<string, number>();
  /** Last seq known flushed to disk. */
  durableSize: number;
  lastCheckpointSize: number;
  failed = false;
  readonly inflight = new Set<Promise<unknown>>();

  constructor(tenantId: string, size: number, headHash: string, peaks: Peak[], lastCheckpointSize: number) {
    this.tenantId = tenantId;
    this.tenantJson = JSON.stringify(tenantId);
    this.tenantUtf8 = Buffer.from(tenantId, 'utf8');
    this.size = size;
    this.headHash = headHash;
    this.peaks = peaks;
    this.durableSize = size;
    this.lastCheckpointSize = lastCheckpointSize;
  }

  /**
   * Rebuilds the head from the last stored entry and the Merkle peaks from O(log n) stored subtree roots. Fails
   * closed when entries the size counter vouches for are gone (deleted behind the API's back): appending after them
   * would hide the deletion.
   */
  static load(dbs: LedgerDbs, tenantId: string): TenantState {
    const last = lastRecord(dbs, tenantId);
    const size = last?.seq ?? 0;
    const counted = committedSize(dbs, tenantId);
    if (counted > size) {
      throw new LedgerError('write_failed', `ledger of tenant ${tenantId} is damaged: entries ${size + 1}..${counted} are missing; appends are refused (run verify)`);
    }
    const headHash = last ? Buffer.from(recordHash(last.record)).toString('hex') : GENESIS_PREV_HASH;
    const peaks = size > 0 ? peaksOf(subtreeReader(dbs, tenantId), size) : [];
    return new TenantState(tenantId, size, headHash, peaks, latestCheckpoint(dbs, tenantId)?.tree_size ?? 0);
  }
}

export interface CounterBump {
  /** Map key (parts joined by \0: names never hold control characters). */
  id: string;
  /** LMDB key in the counts database. */
  key: [string, ...string[]];
}

/** The counters (and index prefixes) an entry increments: by event_type, by agent, by both. */
export function countersFor(tenantId: string, input: Pick<PreparedKeys, 'agentId' | 'eventType'>): CounterBump[] {
  const bumps: CounterBump[] = [{ id: `t\0${input.eventType}`, key: [tenantId, 't', input.eventType] }];
  if (input.agentId !== null) {
    bumps.push({ id: `a\0${input.agentId}`, key: [tenantId, 'a', input.agentId] });
    bumps.push({ id: `at\0${input.agentId}\0${input.eventType}`, key: [tenantId, 'at', input.agentId, input.eventType] });
  }
  return bumps;
}
