import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Database, Key } from 'lmdb';
import { LedgerError, LedgerRetention, verifyCheckpointSignature, verifyConsistency, verifyInclusion, type Checkpoint, type Ledger, type PruneBoundary } from '../index.js';
import { rawEntries } from '../../../test/helpers/ledger/raw-entries.js';
import { verifyOffline } from '../../../test/helpers/ledger/offline-verifier.js';
import { event, TempLedger } from '../../../test/helpers/ledger/temp-ledger.js';

const OLD = '2026-01-01T00:00:00.000Z';
const LATER = new Date('2026-06-01T00:00:00.000Z'); // every OLD entry is older than this
const CHECKPOINT_EVERY = 8;


/** Exports the tenant into a string. */
async function exportText(ledger: Ledger): Promise<string> {
  let text = '';
  await ledger.exportJsonl('acme', new Writable({ write: (chunk: Buffer, _enc, done) => ((text += chunk.toString()), done()) }));
  return text;
}


function sink(): Writable {
  return new Writable({ write: (_chunk, _enc, done) => done() });
}

/** 40 entries of tenant acme (agents a and b alternating), checkpoints at 8, 16, 24, 32, 40. */
async function fill(t: TempLedger, n = 40, createdAt = OLD): Promise<void> {
  for (let i = 0; i < n; i += 8) {
    await t.ledger.append('acme', Array.from({ length: Math.min(8, n - i) }, (_, j) => event(i + j + 1, { agent: (i + j) % 2 === 0 ? 'a' : 'b', created_at: createdAt })));
  }
}

function checkpointAt(ledger: Ledger, size: number): Checkpoint {
  const cp = ledger.checkpoints('acme', { fromSize: size, limit: 1 })[0];
  expect(cp?.tree_size).toBe(size);
  expect(verifyCheckpointSignature(cp!, ledger.publicKey)).toBe(true);
  return cp!;
}

function boundaries(t: TempLedger): Database<PruneBoundary, Key> {
  return t.root.openDB<PruneBoundary, Key>({ name: 'ledger_retention' });
}

function pruneError(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof LedgerError ? err.code : String(err);
  }
}

let t: TempLedger | undefined;
afterEach(async () => {
  await t?.dispose();
  t = undefined;
});

describe('ledger retention: the gates', () => {
  it('prunes nothing that was never exported', async () => {
    t = new TempLedger({ checkpointEvery: CHECKPOINT_EVERY });
    await fill(t);
    expect(await t.ledger.prune('acme', { before: LATER, releasedThrough: t.ledger.exportedThrough('acme') })).toEqual({ tenant_id: 'acme', pruned_through: 0, removed: 0 });
    expect(t.ledger.get('acme', 1)?.seq).toBe(1);
  });

  it('an export sets the durable mark; pruning stops at the last checkpoint within it, below the head', async () => {
    t = new TempLedger({ checkpointEvery: CHECKPOINT_EVERY });
    await fill(t, 20); // checkpoints at 8 and 16
    await t.ledger.exportJsonl('acme', sink());
    expect(t.ledger.exportedThrough('acme')).toBe(20); // the export signs a checkpoint at 20 too
    await t.reopen({ checkpointEvery: CHECKPOINT_EVERY });
    expect(t.ledger.exportedThrough('acme')).toBe(20);
    // Released through 19: the checkpoint at 20 is past it, so the boundary is the one at 16.
    expect(await t.ledger.prune('acme', { before: LATER, releasedThrough: 19 })).toEqual({ tenant_id: 'acme', pruned_through: 16, removed: 16 });
    // Released through everything: the head (20, also a checkpoint) is never pruned.
    expect((await t.ledger.prune('acme', { before: LATER, releasedThrough: 20 })).pruned_through).toBe(16);
  });

  it('prunes nothing without a signed checkpoint covering the entries', async () => {
    t = new TempLedger({ checkpointEvery: 1000 });
    await fill(t);
    expect(t.ledger.checkpoints('acme')).toEqual([]);
    expect(await t.ledger.prune('acme', { before: LATER, releasedThrough: 40 })).toMatchObject({ pruned_through: 0, removed: 0 });
  });

  it('keeps entries younger than the cutoff, and everything after the first young one', async () => {
    t = new TempLedger({ checkpointEvery: CHECKPOINT_EVERY });
    await fill(t, 16, OLD);
    await fill(t, 16, '2026-09-01T00:00:00.000Z'); // seq 17..32 are young
    expect(await t.ledger.prune('acme', { before: new Date('2025-12-31T00:00:00.000Z'), releasedThrough: 32 })).toMatchObject({ pruned_through: 0 });
    expect(await t.ledger.prune('acme', { before: LATER, releasedThrough: 32 })).toMatchObject({ pruned_through: 16, removed: 16 });
  });

  it('retention off (0 days) prunes nothing, even when every other gate is open', async () => {
    t = new TempLedger({ checkpointEvery: CHECKPOINT_EVERY });
    await fill(t);
    const retention = new LedgerRetention(t.ledger, { days: 0, intervalMs: 1000, releasedThrough: () => 40, now: () => LATER.getTime() });
    retention.start();
    expect(await retention.runOnce()).toEqual([]);
    await retention.close();
    expect(t.ledger.prunedThrough('acme')).toBe(0);
    expect(t.ledger.get('acme', 1)?.seq).toBe(1);
  });

  it('the schedule prunes each tenant through its export mark', async () => {
    t = new TempLedger({ checkpointEvery: CHECKPOINT_EVERY });
    await fill(t);
    await t.ledger.append('other', [event(1, { created_at: OLD })]);
    await t.ledger.exportJsonl('acme', sink());
    const retention = new LedgerRetention(t.ledger, { days: 30, intervalMs: 3_600_000, chunk: 3, now: () => LATER.getTime() });
    expect(await retention.runOnce()).toEqual([
      { tenant_id: 'acme', pruned_through: 32, removed: 32 },
      { tenant_id: 'other', pruned_through: 0, removed: 0 },
    ]);
    await retention.close();
  });
});

describe('ledger retention: what remains stays provable', () => {
  async function pruned(options: { verifyWorkerThreshold?: number } = {}): Promise<TempLedger> {
    const tl = new TempLedger({ checkpointEvery: CHECKPOINT_EVERY, ...options });
    t = tl;
    await fill(tl); // checkpoints 8..40
    await tl.ledger.exportJsonl('acme', sink());
    expect(await tl.ledger.prune('acme', { before: LATER, releasedThrough: 24, chunk: 5 })).toMatchObject({ pruned_through: 24, removed: 24 });
    return tl;
  }

  it.each([
    ['inline', Infinity],
    ['worker', 1],
  ])('verify passes from the signed boundary (%s tree check)', async (_label, verifyWorkerThreshold) => {
    const tl = await pruned({ verifyWorkerThreshold });
    expect(await tl.ledger.verify('acme')).toMatchObject({ ok: true, prunedThrough: 24, checked: 16, expectedSize: 40, firstBrokenSeq: null, checkpointsChecked: 5 });
  });

  it('proofs of remaining entries verify against signed checkpoints; pruned ones answer pruned', async () => {
    const tl = await pruned();
    const { ledger } = tl;
    for (const seq of [25, 31, 33, 40]) {
      for (const size of [32, 40]) {
        if (seq > size) continue;
        const proof = ledger.inclusionProof('acme', seq, size);
        expect(verifyInclusion(proof)).toBe(true);
        expect(proof.root_hash).toBe(checkpointAt(ledger, size).root_hash);
        expect(proof.entry_hash).toBe(ledger.get('acme', seq)!.hash);
      }
    }
    for (const from of [24, 25, 32]) {
      const proof = ledger.consistencyProof('acme', from, 40);
      expect(verifyConsistency(proof)).toBe(true);
      expect(proof.to_root).toBe(checkpointAt(ledger, 40).root_hash);
    }
    expect(ledger.rootAt('acme', 24)).toBe(checkpointAt(ledger, 24).root_hash);
    expect(pruneError(() => ledger.get('acme', 24))).toBe('pruned');
    expect(pruneError(() => ledger.get('acme', 1))).toBe('pruned');
    expect(pruneError(() => ledger.inclusionProof('acme', 3, 40))).toBe('pruned');
    expect(pruneError(() => ledger.consistencyProof('acme', 8, 40))).toBe('pruned');
    expect(pruneError(() => ledger.rootAt('acme', 16))).toBe('pruned');
    expect(ledger.get('acme', 41)).toBeUndefined();
  });

  it('lists return only remaining entries, index lists no dangling seqs, totals count what is held', async () => {
    const { ledger } = await pruned();
    const all = ledger.list('acme', { limit: 100 });
    expect(all.events.map((e) => e.seq)).toEqual(Array.from({ length: 16 }, (_, i) => 25 + i));
    expect(all.total).toBe(16);
    const a = ledger.list('acme', { limit: 100, agentId: 'a' });
    expect(a.events.map((e) => e.seq)).toEqual([25, 27, 29, 31, 33, 35, 37, 39]);
    expect(a.total).toBe(8);
    expect(ledger.list('acme', { limit: 100, agentId: 'b', eventType: 'tool_call', order: 'desc' })).toMatchObject({ total: 8 });
    expect(ledger.list('acme', { limit: 100, eventType: 'tool_call', order: 'desc' }).events.at(-1)?.seq).toBe(25);
    const index = t!.root.openDB<Buffer, Key>({ name: 'ledger_index', encoding: 'binary' });
    const seqs = [...index.getKeys({ start: ['acme'], end: ['acme\u0000'] })].map((k) => (k as unknown[]).at(-1) as number);
    expect(Math.min(...seqs)).toBe(25);
  });

  it("removes the per-agent index keys of a ledger written by an earlier build with its entries; lists never read them", async () => {
    const tl = new TempLedger({ checkpointEvery: CHECKPOINT_EVERY });
    t = tl;
    await fill(tl);
    // Earlier builds also wrote [tenant, 'a', agent, seq] for every entry naming an agent.
    const index = tl.root.openDB<Buffer, Key>({ name: 'ledger_index', encoding: 'binary' });
    const legacy = () => [...index.getKeys({ start: ['acme', 'a'], end: ['acme', 'a\u0000'] })].map((k) => (k as unknown[]).at(-1) as number);
    expect(legacy()).toEqual([]);
    await tl.root.transaction(() => {
      for (let seq = 1; seq <= 40; seq++) index.put(['acme', 'a', seq % 2 === 1 ? 'a' : 'b', seq], Buffer.alloc(0));
    });
    expect(tl.ledger.list('acme', { limit: 100, agentId: 'b' }).events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 2 * i + 2));
    await tl.ledger.exportJsonl('acme', sink());
    expect(await tl.ledger.prune('acme', { before: LATER, releasedThrough: 24, chunk: 5 })).toMatchObject({ pruned_through: 24, removed: 24 });
    expect(Math.min(...legacy())).toBe(25);
    expect(tl.ledger.list('acme', { limit: 100, agentId: 'b' })).toMatchObject({ total: 8 });
  });

  it('after a restart appends continue the chain, verify passes, and a second prune moves the boundary', async () => {
    const tl = await pruned();
    await tl.reopen({ checkpointEvery: CHECKPOINT_EVERY });
    const [next] = await tl.ledger.append('acme', [event(41, { created_at: OLD })]);
    expect(next!.seq).toBe(41);
    expect(next!.prev_hash).toBe(tl.ledger.get('acme', 40)!.hash);
    expect(await tl.ledger.verify('acme')).toMatchObject({ ok: true, prunedThrough: 24, checked: 17 });
    await tl.ledger.exportJsonl('acme', sink());
    expect(await tl.ledger.prune('acme', { before: LATER, releasedThrough: 41 })).toMatchObject({ pruned_through: 40, removed: 16 });
    expect(await tl.ledger.verify('acme')).toMatchObject({ ok: true, prunedThrough: 40, checked: 1 });
    expect(verifyInclusion(tl.ledger.inclusionProof('acme', 41))).toBe(true);
  });
});

describe('ledger retention: a run cut short between the boundary and the deletions', () => {
  it('reads, lists, totals and verify already stop at the boundary; the next run deletes what was left below it', async () => {
    const tl = new TempLedger({ checkpointEvery: CHECKPOINT_EVERY });
    t = tl;
    await fill(tl);
    await tl.ledger.exportJsonl('acme', sink());
    // The boundary is written, the first chunk of 5 is deleted, then the second chunk's transaction fails (a crash
    // or a full disk at that moment): 19 entries below the boundary are still stored.
    const real = tl.root.transaction.bind(tl.root);
    let calls = 0;
    const cut = vi.spyOn(tl.root, 'transaction').mockImplementation(((work: () => unknown) => {
      calls++;
      return calls === 2 ? Promise.reject(new Error('cut short')) : real(work);
    }) as typeof tl.root.transaction);
    await expect(tl.ledger.prune('acme', { before: LATER, releasedThrough: 24, chunk: 5 })).rejects.toThrow('cut short');
    cut.mockRestore();
    expect(tl.ledger.prunedThrough('acme')).toBe(24);
    const firstStored = () => ([...rawEntries(tl.root).getKeys({ start: ['acme'], end: ['acme\u0000'] })][0] as [string, number])[1];
    expect(firstStored()).toBe(6);

    const check = async () => {
      expect(pruneError(() => tl.ledger.get('acme', 10))).toBe('pruned');
      expect(pruneError(() => tl.ledger.get('acme', 24))).toBe('pruned');
      const all = tl.ledger.list('acme', { limit: 100 });
      expect(all.events.map((e) => e.seq)).toEqual(Array.from({ length: 16 }, (_, i) => 25 + i));
      expect(all.total).toBe(16);
      expect(tl.ledger.list('acme', { limit: 100, agentId: 'a' })).toMatchObject({ total: 8 });
      expect(await tl.ledger.verify('acme')).toMatchObject({ ok: true, prunedThrough: 24, checked: 16, firstBrokenSeq: null });
    };
    await check();
    await tl.reopen({ checkpointEvery: CHECKPOINT_EVERY });
    await check();
    expect(await tl.ledger.prune('acme', { before: LATER, releasedThrough: 24, chunk: 5 })).toEqual({ tenant_id: 'acme', pruned_through: 24, removed: 19 });
    expect(firstStored()).toBe(25);
    await check();
  });
});

describe('ledger retention: exports after pruning', () => {
  it('start at the boundary, and the offline verifier proves them from it', async () => {
    const tl = new TempLedger({ checkpointEvery: CHECKPOINT_EVERY });
    t = tl;
    await fill(tl, 37);
    await tl.ledger.exportJsonl('acme', sink());
    expect((await tl.ledger.prune('acme', { before: LATER, releasedThrough: 37 })).pruned_through).toBe(32);
    const text = await exportText(tl.ledger);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 5);
    expect(JSON.parse(lines[0]!).boundary).toMatchObject({ pruned_through: 32, root_hash: checkpointAt(tl.ledger, 32).root_hash });
    expect(JSON.parse(lines[1]!).seq).toBe(33);
    const ok = await verifyOffline(tl.dir, text);
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.out).toMatch(/5 entries \(33\.\.37; 1\.\.32 pruned/);
    // A boundary moved past a dropped line, or a dropped first line, fails offline too.
    const header = JSON.parse(lines[0]!);
    const moved = [JSON.stringify({ ...header, boundary: { ...header.boundary, pruned_through: 33 } }), ...lines.slice(2)].join('\n');
    expect((await verifyOffline(tl.dir, moved)).code).toBe(1);
    expect((await verifyOffline(tl.dir, [lines[0], ...lines.slice(2)].join('\n'))).code).toBe(1);
  });
});

describe('ledger retention: tamper evidence does not weaken', () => {
  async function pruned(): Promise<TempLedger> {
    const tl = new TempLedger({ checkpointEvery: CHECKPOINT_EVERY });
    t = tl;
    await fill(tl);
    await tl.ledger.exportJsonl('acme', sink());
    await tl.ledger.prune('acme', { before: LATER, releasedThrough: 24 });
    expect((await tl.ledger.verify('acme')).ok).toBe(true);
    return tl;
  }

  it('finds an entry deleted in the remaining range, the first remaining one, and the tail', async () => {
    const tl = await pruned();
    const raw = rawEntries(tl.root);
    const first = raw.get(['acme', 25])!;
    await raw.remove(['acme', 30]);
    expect(await tl.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: 30, checked: 5 });
    await raw.remove(['acme', 25]);
    expect(await tl.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: 25, checked: 0 });
    await raw.put(['acme', 25], first);
    await raw.put(['acme', 30], raw.get(['acme', 31])!); // a copy, moved
    expect(await tl.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: 30 });
  });

  it('finds the tail deleted after pruning', async () => {
    const tl = await pruned();
    const raw = rawEntries(tl.root);
    await raw.remove(['acme', 40]);
    expect(await tl.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: 40 });
  });

  it('a boundary moved forward to hide deleted entries does not verify', async () => {
    const tl = await pruned();
    const raw = rawEntries(tl.root);
    const db = boundaries(tl);
    const real = db.get(['acme', 'boundary'])!;
    // The attacker deletes 25..32 and rewrites the boundary as if pruned through the checkpoint at 32 (with the
    // true entry hash and root, which it can read): it cannot sign it.
    const cp32 = checkpointAt(tl.ledger, 32);
    for (let seq = 25; seq <= 32; seq++) await raw.remove(['acme', seq]);
    await db.put(['acme', 'boundary'], { ...real, pruned_through: 32, root_hash: cp32.root_hash, entry_hash: JSON.parse(JSON.stringify(real)).entry_hash });
    const report = await tl.ledger.verify('acme');
    expect(report).toMatchObject({ ok: false, firstBrokenSeq: 33, prunedThrough: 32 });
    expect(report.reason).toMatch(/bad signature/);
  });

  it('a boundary whose frontier was changed, or that was removed, does not verify', async () => {
    const tl = await pruned();
    const db = boundaries(tl);
    const real = db.get(['acme', 'boundary'])!;
    await db.put(['acme', 'boundary'], { ...real, frontier: real.frontier.map((h) => h.replace(/^./, (c) => (c === '0' ? '1' : '0'))) });
    expect(await tl.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: 25 });
    await db.remove(['acme', 'boundary']);
    expect(await tl.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: 1 });
  });

  it('a boundary whose checkpoint was deleted does not verify', async () => {
    const tl = await pruned();
    await tl.root.openDB<Checkpoint, Key>({ name: 'ledger_checkpoints' }).remove(['acme', 24]);
    const report = await tl.ledger.verify('acme');
    expect(report).toMatchObject({ ok: false, firstBrokenSeq: 25 });
    expect(report.reason).toMatch(/checkpoint/);
  });

  it('refuses to prune a prefix that does not verify', async () => {
    const tl = new TempLedger({ checkpointEvery: CHECKPOINT_EVERY });
    t = tl;
    await fill(tl);
    await tl.ledger.exportJsonl('acme', sink());
    const raw = rawEntries(tl.root);
    await raw.remove(['acme', 5]);
    await expect(tl.ledger.prune('acme', { before: LATER, releasedThrough: 40 })).rejects.toThrow(/entry 5 is missing/);
    expect(tl.ledger.prunedThrough('acme')).toBe(0);
  });
});
