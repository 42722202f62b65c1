import { describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { SharedTable } from './shared-table.js';
import { startModuleWorker } from './start-module-worker.js';

const COUNTER = new URL('../../test/helpers/threads/count-in-shared-table.js', import.meta.url);

function add(table: SharedTable, key: string, now: number, n = 1): number {
  const slot = table.acquire('tenant', key, now);
  try {
    const at = slot * table.stride + 1;
    return (table.values[at] = (table.values[at] ?? 0) + n);
  } finally {
    table.release(slot);
  }
}

describe('SharedTable', () => {
  it('keeps one record per key, new records start at zero, and tells which are new', () => {
    const table = new SharedTable(SharedTable.create(1024, 2));
    expect(add(table, 'tenant-a\0p1', 1)).toBe(1);
    expect(table.fresh).toBe(true);
    expect(add(table, 'tenant-a\0p1', 2)).toBe(2);
    expect(table.fresh).toBe(false);
    expect(add(table, 'tenant-b\0p1', 3)).toBe(1);
    expect(add(table, 'tenant-a\0p1', 4, 5)).toBe(7);
    for (let i = 0; i < 500; i++) add(table, `key-${i}`, 5 + i);
    // 500 other keys later, in a table of 1,024, the first key's record is still its own.
    expect(add(table, 'tenant-a\0p1', 600)).toBe(8);
  });

  it('finds a record without making one: -1 for a key it has none of', () => {
    const table = new SharedTable(SharedTable.create(64, 1));
    expect(table.find('tenant', 'nobody')).toBe(-1);
    add(table, 'somebody', 1, 5);
    const slot = table.find('tenant', 'somebody');
    expect(slot).toBeGreaterThanOrEqual(0);
    expect(table.values[slot * table.stride + 1]).toBe(5);
    table.release(slot);
    expect(table.find('tenant', 'nobody')).toBe(-1);
    // Looking made nothing: the first real use of the key starts it.
    expect(add(table, 'nobody', 2)).toBe(1);
    expect(table.fresh).toBe(true);
  });

  it('a table without room for a key gives the least recently used record of its slots to it, from zero', () => {
    // Sixteen slots: the seventeenth key must take one over.
    const table = new SharedTable(SharedTable.create(16, 1));
    for (let i = 0; i < 16; i++) add(table, `k${i}`, 10 + i, 10);
    // k0 was used last at 10, the others later; touching k0 now makes k1 the oldest.
    expect(add(table, 'k0', 100)).toBe(11);
    expect(add(table, 'newcomer', 101)).toBe(1);
    expect(add(table, 'k0', 102)).toBe(12);
    // k1 is the one that went: it starts again.
    expect(add(table, 'k1', 103)).toBe(1);
  });

  it('refuses a key (-1) when every slot it may take is one the caller keeps', () => {
    const table = new SharedTable(SharedTable.create(16, 1));
    for (let i = 0; i < 16; i++) add(table, `held${i}`, 1, 1);
    expect(table.acquire('tenant', 'one-more', 2, () => true)).toBe(-1);
    expect(add(table, 'held3', 3)).toBe(2);
  });

  it('counts exactly when three threads update the same records at once', async () => {
    const memory = SharedTable.create(4096, 1);
    const keys = Array.from({ length: 40 }, (_, i) => `tenant\0policy-${i % 4}\0agent-${i}`);
    const rounds = 20_000;
    const workers = [0, 1].map(() => startModuleWorker(COUNTER, { workerData: { memory, keys, rounds } }));
    const finished = workers.map((w) => once(w, 'message'));
    const table = new SharedTable(memory);
    for (let r = 0; r < rounds; r++) for (const key of keys) add(table, key, 1 + r);
    await Promise.all(finished);
    await Promise.all(workers.map((w) => w.terminate()));
    for (const key of keys) expect(add(table, key, rounds + 1, 0)).toBe(3 * rounds);
  });
});
