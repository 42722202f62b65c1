import type { Database, Key, RootDatabase } from 'lmdb';
import { boundaryPeaks, peakNodes, type PruneBoundary } from '../lifecycle/boundary.js';
import type { AnchorState, Checkpoint, CheckpointAnchor } from '../merkle/checkpoint.js';
import type { LedgerEntry } from '../log/entry-input.js';
import { LedgerError } from '../errors.js';
import { leafHash } from '../log/hash.js';
import type { SubtreeReader } from '../merkle/merkle.js';
import { checkRecord, recordCanonical, recordHash, recordNode } from '../log/record-codec.js';
import { RECORD_DICTIONARY } from '../log/record-dictionary.js';

/**
 * The ledger's named databases inside the gateway's LMDB environment. Every key starts with the tenant id, and every
 * read below takes one tenant id, so no call can range into another tenant's keys.
 */
export interface LedgerDbs {
  readonly root: RootDatabase;
  /** [tenant, seq] -> record (record-codec.ts); its text LZ4-compressed (record-compression.ts) when compression is on */
  readonly entries: Database<Buffer, Key>;
  /**
   * [tenant, 't', event_type, seq] | [tenant, 'at', agent, event_type, seq] -> empty. Ledgers written by earlier
   * builds also hold [tenant, 'a', agent, seq] keys: no longer read, removed with their entries by retention.
   */
  readonly index: Database<Buffer, Key>;
  /** counters, same key shapes without seq; [tenant, 'n'] = committed chain size */
  readonly counts: Database<number, Key>;
  /**
   * Retention's state (docs/ledger.md, "Retention"): [tenant, 'boundary'] -> PruneBoundary, [tenant, 'exported'] ->
   * seq a complete export reached, [tenant, 'p', ...counter key without tenant] -> entries of that counter pruned.
   * Written only by exports and the pruner, never by an append.
   */
  readonly retention: Database<PruneBoundary | number, Key>;
  /** [tenant, tree_size] -> Checkpoint */
  readonly checkpoints: Database<Checkpoint, Key>;
  /** [tenant, tree_size] -> the checkpoint's RFC 3161 time-stamp, once the TSA gave one (anchor-queue.ts). */
  readonly anchors: Database<CheckpointAnchor, Key>;
  /** [tenant, tree_size] -> ms since the epoch it was queued: checkpoints waiting for the TSA, across restarts. */
  readonly anchorQueue: Database<number, Key>;
}

/** Above any seq (2^53 - 1): the exclusive end of a tenant's ranges. */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/**
 * How `ledger_entries` is opened: with the dictionary, so records that builds before the writer compressed were
 * compressed by lmdb-js (a value starting with a byte >= 250, never a record's version byte) are expanded on read;
 * lmdb-js compresses nothing new (docs/ledger.md, "Storage"). Open with a copy (`{ ...o, compression: { ...c } }`):
 * lmdb-js replaces the compression settings of the options object it is given with its own native object.
 */
export const ENTRIES_DB_OPTIONS = { name: 'ledger_entries', encoding: 'binary', compression: { threshold: Number.MAX_SAFE_INTEGER, dictionary: RECORD_DICTIONARY } } as const;

export function openLedgerDbs(root: RootDatabase): LedgerDbs {
  return {
    root,
    entries: root.openDB<Buffer, Key>({ ...ENTRIES_DB_OPTIONS, compression: { ...ENTRIES_DB_OPTIONS.compression } }),
    index: root.openDB<Buffer, Key>({ name: 'ledger_index', encoding: 'binary' }),
    counts: root.openDB<number, Key>({ name: 'ledger_counts' }),
    checkpoints: root.openDB<Checkpoint, Key>({ name: 'ledger_checkpoints' }),
    anchors: root.openDB<CheckpointAnchor, Key>({ name: 'ledger_anchors' }),
    anchorQueue: root.openDB<number, Key>({ name: 'ledger_anchor_queue' }),
    retention: root.openDB<PruneBoundary | number, Key>({ name: 'ledger_retention' }),
  };
}

export const EMPTY = Buffer.alloc(0);

export function readRecord(dbs: LedgerDbs, tenantId: string, seq: number): Buffer | undefined {
  const record = dbs.entries.get([tenantId, seq]);
  if (record !== undefined) checkRecord(record);
  return record;
}

/** The entry as callers see it: the stored canonical text parsed, plus its hash. */
export function decodeEntry(record: Buffer): LedgerEntry {
  const entry = JSON.parse(Buffer.from(recordCanonical(record)).toString('utf8')) as LedgerEntry;
  entry.hash = Buffer.from(recordHash(record)).toString('hex');
  return entry;
}

/** One JSONL line of an export: the canonical text with `hash` appended, no parse needed. */
export function entryLine(record: Buffer): string {
  const canonical = Buffer.from(recordCanonical(record)).toString('utf8');
  return `${canonical.slice(0, -1)},"hash":"${Buffer.from(recordHash(record)).toString('hex')}"}\n`;
}

/**
 * Reads stored subtree roots of one tenant's tree (merkle.ts). A subtree whose record was pruned is answered from the
 * boundary's peaks when it is one of them (the only ones a tree or proof past the boundary needs), else with
 * LedgerError('pruned'); a record missing above the boundary throws a RangeError (damage).
 */
export function subtreeReader(dbs: LedgerDbs, tenantId: string): SubtreeReader {
  let pruned: { through: number; nodes: Map<string, Buffer> } | null = null;
  return (level, index) => {
    const seq = (index + 1) * 2 ** level;
    const record = readRecord(dbs, tenantId, seq);
    if (record !== undefined) return level === 0 ? leafHash(recordHash(record)) : recordNode(record, level);
    // Only here, on a missing record, is the boundary read: an unpruned ledger pays nothing for retention.
    if (pruned === null) {
      const b = readBoundary(dbs, tenantId);
      pruned = b ? { through: b.pruned_through, nodes: peakNodes(boundaryPeaks(b)) } : { through: 0, nodes: new Map() };
    }
    if (seq > pruned.through) throw new RangeError(`ledger record ${tenantId}#${seq} is missing`);
    const node = pruned.nodes.get(`${level}/${index}`);
    if (node === undefined) throw new LedgerError('pruned', `this needs entries up to seq ${seq}, which were pruned (entries 1..${pruned.through} are gone)`);
    return node;
  };
}

/** The tenant's pruning boundary, if retention pruned anything. */
export function readBoundary(dbs: LedgerDbs, tenantId: string): PruneBoundary | undefined {
  const value = dbs.retention.get([tenantId, 'boundary']);
  return typeof value === 'object' ? value : undefined;
}

/** Last pruned seq (0 = nothing pruned). */
export function prunedThrough(dbs: LedgerDbs, tenantId: string): number {
  return readBoundary(dbs, tenantId)?.pruned_through ?? 0;
}

/** Committed chain size, as stored in the same transaction as the entries. */
export function committedSize(dbs: LedgerDbs, tenantId: string): number {
  return dbs.counts.get([tenantId, 'n']) ?? 0;
}

export function lastRecord(dbs: LedgerDbs, tenantId: string): { seq: number; record: Buffer } | undefined {
  for (const { key, value } of dbs.entries.getRange({ start: [tenantId, MAX_SEQ], end: [tenantId, 0], reverse: true, limit: 1 })) {
    checkRecord(value);
    return { seq: (key as [string, number])[1], record: value };
  }
  return undefined;
}

export function latestCheckpoint(dbs: LedgerDbs, tenantId: string): Checkpoint | undefined {
  for (const { value } of dbs.checkpoints.getRange({ start: [tenantId, MAX_SEQ], end: [tenantId, 0], reverse: true, limit: 1 })) return value;
  return undefined;
}

export function listCheckpoints(dbs: LedgerDbs, tenantId: string, fromSize = 0, limit = Infinity): Checkpoint[] {
  const out: Checkpoint[] = [];
  for (const { value } of dbs.checkpoints.getRange({ start: [tenantId, fromSize], end: [tenantId, MAX_SEQ], limit })) out.push(value);
  return out;
}

/** Where a checkpoint stands with the TSA; null when it was never queued (its tenant's checkpoints are not time-stamped). */
export function anchorState(dbs: LedgerDbs, tenantId: string, treeSize: number): AnchorState | null {
  const anchor = dbs.anchors.get([tenantId, treeSize]);
  if (anchor) return { status: 'anchored', ...anchor };
  return dbs.anchorQueue.get([tenantId, treeSize]) === undefined ? null : { status: 'pending' };
}
