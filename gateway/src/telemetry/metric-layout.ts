import type { Database } from 'lmdb';
import { COUNTER_INDEX, emptySlot, mergeMeasure, METRIC_INDEX, SLOT_TAG, type Slot, type SlotKey } from './metric-slot.js';

/** The store's layout version, kept beside its flush counter (docs/telemetry.md, "How samples are stored"). */
const LAYOUT: [string, string] = ['\u0000metric-store', 'layout'];
const SLOTS = 2;

/**
 * Moves samples of the first layout ([tenant, metric, agent, second] -> one metric's samples) into slots (one key per
 * tenant, agent and second holding every measure), once, at open: a store written by an older gateway answers the
 * same queries after an upgrade. Runs before the store takes writes, in chunks of committed transactions, so an
 * interrupted migration resumes at the next open and never counts a sample twice (a chunk's old keys go in the
 * transaction that adds them to the slots). Returns the latest second it moved (0: none).
 */
export function migrateToSlots(db: Database, chunk = 5000): number {
  if (db.get(LAYOUT) === SLOTS) return 0;
  let latest = 0;
  // Each chunk resumes at the last key moved: the slots it wrote sort before their tenant's old keys, not after.
  let from: [string, string, string, number] | undefined;
  for (;;) {
    const old: { key: [string, string, string, number]; value: number[] }[] = [];
    for (const { key, value } of db.getRange(from === undefined ? {} : { start: from })) {
      const k = key as unknown[];
      if (k.length === 4 && typeof k[1] === 'string' && METRIC_INDEX.has(k[1])) old.push({ key: k as [string, string, string, number], value: value as number[] });
      if (old.length >= chunk) break;
    }
    if (old.length === 0) break;
    db.transactionSync(() => {
      const slots = new Map<string, { key: SlotKey; slot: Slot }>();
      for (const { key, value } of old) {
        const [tenantId, metric, agentId, second] = key;
        if (second > latest) latest = second;
        const id = JSON.stringify([tenantId, agentId, second]);
        let entry = slots.get(id);
        if (entry === undefined) {
          const slotKey: SlotKey = [tenantId, SLOT_TAG, agentId, second];
          entry = { key: slotKey, slot: (db.get(slotKey) as Slot | undefined)?.slice() ?? emptySlot() };
          slots.set(id, entry);
        }
        const i = METRIC_INDEX.get(metric) as number;
        const added = COUNTER_INDEX[i] ? (value[0] ?? 0) : value;
        entry.slot[i] = mergeMeasure(i, entry.slot[i] ?? null, added);
        void db.remove(key);
      }
      for (const { key, slot } of slots.values()) void db.put(key, slot);
    });
    from = (old[old.length - 1] as { key: [string, string, string, number] }).key;
  }
  db.putSync(LAYOUT, SLOTS);
  return latest;
}
