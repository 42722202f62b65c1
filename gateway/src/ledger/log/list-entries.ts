import type { Key } from 'lmdb';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { LedgerEntry } from './entry-input.js';
import type { ListPage } from '../ledger-types.js';
import { committedSize, decodeEntry, MAX_SEQ, prunedThrough, readRecord, type LedgerDbs } from '../storage/store.js';

export interface ListFilter {
  limit: number;
  order: 'asc' | 'desc';
  agentId: string | null;
  eventType: string | null;
  cursor: string | null;
}

/**
 * One page of a tenant's entries, optionally of one agent and/or one event type (arguments already checked).
 *
 * Each entry is indexed under its event type and, when it names an agent, under agent + event type (chain-writer.ts).
 * An agent's entries are the merge, in seq order, of its event types' ranges: the types are the keys of its
 * counters, so a listing by agent needs no index key of its own per entry.
 */
export function listEntries(dbs: LedgerDbs, tenantId: string, q: ListFilter): ListPage {
  const { limit, agentId, eventType } = q;
  const asc = q.order === 'asc';
  const after = q.cursor ? decodeCursor(q.cursor, q.order) : null;
  // The counter counting exactly the filtered entries, and the index ranges holding them.
  let counter: string[] | null = null;
  let prefixes: string[][] = [];
  if (agentId !== null && eventType !== null) prefixes = [(counter = [tenantId, 'at', agentId, eventType])];
  else if (agentId !== null) {
    counter = [tenantId, 'a', agentId];
    prefixes = agentTypes(dbs, tenantId, agentId).map((type) => [tenantId, 'at', agentId, type]);
  } else if (eventType !== null) prefixes = [(counter = [tenantId, 't', eventType])];

  // Retention: entries through `pruned` are gone; `total` counts what is still held (counter minus pruned tally)
  // and past the boundary: a prune cut short leaves keys below it, tallied only once the next run deletes them.
  const pruned = prunedThrough(dbs, tenantId);
  let total: number;
  if (counter === null) total = committedSize(dbs, tenantId) - pruned;
  else {
    total = dbs.counts.get(counter) ?? 0;
    if (pruned > 0) {
      total -= prunedCount(dbs.retention.get([tenantId, 'p', ...counter.slice(1)]));
      for (const p of prefixes) total -= dbs.index.getCount({ start: [...p, 0], end: [...p, pruned + 1] });
    }
  }

  // Bounded by the boundary too, so keys a crash left below it (deleted by the next prune) are never listed.
  const range = (base: string[]) =>
    asc
      ? { start: [...base, Math.max(after ?? 0, pruned) + 1], end: [...base, MAX_SEQ], limit: limit + 1 }
      : { start: [...base, after !== null ? after - 1 : MAX_SEQ], end: [...base, pruned], reverse: true, limit: limit + 1 };
  const events: LedgerEntry[] = [];
  if (counter === null) {
    for (const { value } of dbs.entries.getRange(range([tenantId]))) events.push(decodeEntry(value));
  } else {
    const ranges = prefixes.map((p) => seqsOf(dbs.index.getKeys(range(p)), p.length));
    for (const seq of mergeSeqs(ranges, asc, limit + 1)) {
      const record = readRecord(dbs, tenantId, seq);
      if (record) events.push(decodeEntry(record));
    }
  }
  const more = events.length > limit;
  if (more) events.length = limit;
  return { events, cursor: more ? encodeCursor(q.order, events[events.length - 1]!.seq) : null, total };
}

/** The event types an agent has entries of: the last part of its [tenant, 'at', agent, type] counters. */
function agentTypes(dbs: LedgerDbs, tenantId: string, agentId: string): string[] {
  const types: string[] = [];
  for (const key of dbs.counts.getKeys({ start: [tenantId, 'at', agentId] })) {
    const k = key as unknown[];
    if (k[0] !== tenantId || k[1] !== 'at' || k[2] !== agentId) break;
    if (k.length === 4 && typeof k[3] === 'string') types.push(k[3]);
  }
  return types;
}

function* seqsOf(keys: Iterable<Key>, at: number): Iterator<number> {
  for (const key of keys) yield (key as unknown[])[at] as number;
}

/** Up to `limit` seqs of several ranges, each already in order, merged in that order (a range's seqs are distinct). */
function mergeSeqs(ranges: Iterator<number>[], asc: boolean, limit: number): number[] {
  const heads = ranges.map((r) => r.next());
  const out: number[] = [];
  while (out.length < limit) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i]!;
      if (h.done) continue;
      if (best < 0 || (asc ? h.value < (heads[best]!.value as number) : h.value > (heads[best]!.value as number))) best = i;
    }
    if (best < 0) break;
    out.push(heads[best]!.value as number);
    heads[best] = ranges[best]!.next();
  }
  return out;
}

function prunedCount(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}
