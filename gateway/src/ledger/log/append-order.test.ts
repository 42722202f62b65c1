import { afterEach, describe, expect, it } from 'vitest';
import type { Key } from 'lmdb';
import { LedgerError } from '../index.js';
import { rawEntries } from '../../../test/helpers/ledger/raw-entries.js';
import { event, TempLedger } from '../../../test/helpers/ledger/temp-ledger.js';

let t: TempLedger | undefined;
afterEach(async () => {
  await t?.dispose();
  t = undefined;
});

/** ~1 KB records, a little more than a proxied call's. */
function large(i: number, agent = 'agent-1') {
  return event(i, { agent, payload: { i, text: 'x'.repeat(700) } });
}

describe('ledger records of the tenant that sorts last are appended (MDB_APPEND)', () => {
  it('fills the pages of a single tenant instead of splitting each in half', async () => {
    t = new TempLedger();
    for (let i = 0; i < 40; i++) await t.ledger.append('acme', Array.from({ length: 10 }, (_, j) => large(i * 10 + j)));
    const stats = rawEntries(t.root).getStats() as { treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
    // Three such records fit a 4 KiB page; a page split in the middle keeps two (200 leaf pages for these 400).
    expect(stats.treeLeafPageCount).toBeLessThanOrEqual(140);
    expect((await t.ledger.verify('acme')).ok).toBe(true);
  });

  it('tenants that sort lower are put as before, in the same chains and lists', async () => {
    t = new TempLedger();
    await t.ledger.append('zeta', [large(1)]);
    await t.ledger.append('acme', [large(2), large(3)]);
    await t.ledger.append('zeta', [large(4)]);
    await t.ledger.append('acme', [large(5)]);
    await t.ledger.append('zetaplus', [large(6)]); // a prefix sorts first: this one is appended
    await t.ledger.append('zeta', [large(7)]);
    expect(t.ledger.list('acme', { limit: 10 }).events.map((e) => e.payload['i'])).toEqual([2, 3, 5]);
    expect(t.ledger.list('zeta', { limit: 10 }).events.map((e) => e.payload['i'])).toEqual([1, 4, 7]);
    expect(t.ledger.list('zetaplus', { limit: 10, agentId: 'agent-1' }).events.map((e) => e.payload['i'])).toEqual([6]);
    for (const tenant of ['acme', 'zeta', 'zetaplus']) expect((await t.ledger.verify(tenant)).ok).toBe(true);
  });

  it('an append refused by a key written behind the writer stores nothing of its batch; appends then go on', async () => {
    t = new TempLedger();
    await t.ledger.append('beta', [large(1)]);
    // A record of a later tenant that this writer never wrote (storage edited behind its back).
    await rawEntries(t.root).put(['gamma', 1], Buffer.from([1]));
    await expect(t.ledger.append('beta', [large(2), large(3)])).rejects.toSatisfy((err) => err instanceof LedgerError && err.code === 'write_failed');
    const index = t.root.openDB<Buffer, Key>({ name: 'ledger_index', encoding: 'binary' });
    expect([...index.getKeys({ start: ['beta'], end: ['beta\u0000'] })].map((k) => (k as unknown[]).at(-1))).toEqual([1, 1]);
    expect(t.ledger.list('beta', { limit: 10 })).toMatchObject({ total: 1 });
    const [next] = await t.ledger.append('beta', [large(4)]);
    expect(next!.seq).toBe(2);
    expect(t.ledger.list('beta', { limit: 10, agentId: 'agent-1' }).events.map((e) => e.payload['i'])).toEqual([1, 4]);
    expect((await t.ledger.verify('beta')).ok).toBe(true);
  });
});
