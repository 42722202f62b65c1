import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database, Key } from 'lmdb';
import { entryHash } from '../log/hash.js';
import { encodeRecord, recordCanonical, recordNodeCount } from '../log/record-codec.js';
import { editCanonical, rawEntries } from '../../../test/helpers/ledger/raw-entries.js';
import { event, TempLedger } from '../../../test/helpers/ledger/temp-ledger.js';

const SIZE = 40;

// Every case runs twice: Merkle tree rebuilt in the verifying thread, and on a worker thread (long chains).
describe.each([
  ['inline tree check', Infinity],
  ['worker tree check', 1],
])('tamper detection (%s)', (_label, verifyWorkerThreshold) => {
let t: TempLedger;
let raw: Database<Buffer, Key>;

beforeEach(async () => {
  t = new TempLedger({ checkpointEvery: 16, verifyWorkerThreshold });
  for (let i = 0; i < SIZE; i += 8) await t.ledger.append('acme', Array.from({ length: 8 }, (_, j) => event(i + j + 1, { agent: 'a' })));
  await t.ledger.append('other', [event(1)]);
  await t.ledger.close();
  await t.reopen({ checkpointEvery: 16, verifyWorkerThreshold });
  raw = rawEntries(t.root);
  expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: SIZE, checkpointsChecked: 3 });
});
afterEach(async () => {
  await t.dispose();
});

  // Odd and even seqs: with the worker, the reading thread re-hashes odd seqs and the worker even ones.
  it.each([13, 14])('finds a payload changed in LMDB at its seq (%i)', async (seq) => {
    const record = raw.get(['acme', seq])!;
    await raw.put(['acme', seq], editCanonical(record, (c) => c.replace(`"query ${seq}"`, '"query 99"')));
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: false, checked: seq - 1, firstBrokenSeq: seq });
  });

  it('finds a changed stored hash at its seq', async () => {
    const record = Buffer.from(raw.get(['acme', 7])!);
    record[5] = record[5]! ^ 0xff;
    await raw.put(['acme', 7], record);
    expect((await t.ledger.verify('acme')).firstBrokenSeq).toBe(7);
  });

  it('finds an entry whose hash was recomputed for its new content where the next entry links to it', async () => {
    // Seq 21 completes no Merkle subtree, so only the chain link to 22 (and the checkpoints) can give it away.
    const record = raw.get(['acme', 21])!;
    const canonical = Buffer.from(recordCanonical(record)).toString('utf8').replace('"query 21"', '"query XX"');
    const prev = /"prev_hash":"([0-9a-f]{64})"/.exec(canonical.slice(canonical.lastIndexOf('"prev_hash"')))![1]!;
    expect(recordNodeCount(record)).toBe(0);
    await raw.put(['acme', 21], encodeRecord(entryHash(prev, canonical), [], canonical));
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: false, checked: 21, firstBrokenSeq: 22 });
  });

  it('finds a deleted entry in the middle and at the end', async () => {
    await raw.remove(['acme', 9]);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: 9, checked: 8 });
  });

  it('finds the last entry deleted, and refuses to append over the hole after a restart', async () => {
    await raw.remove(['acme', SIZE]);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: SIZE });
    const ledger = await t.reopen({ checkpointEvery: 16, verifyWorkerThreshold });
    await expect(ledger.append('acme', [event(99)])).rejects.toMatchObject({ code: 'write_failed' });
    expect(ledger.head('acme').size).toBe(SIZE - 1);
    expect((await ledger.append('other', [event(2)]))[0]!.seq).toBe(2);
  });

  it('finds two entries swapped at the first of them', async () => {
    const a = raw.get(['acme', 22])!;
    const b = raw.get(['acme', 23])!;
    await raw.put(['acme', 22], b);
    await raw.put(['acme', 23], a);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: 22 });
  });

  it("finds another tenant's entry copied in", async () => {
    await raw.put(['acme', 1], raw.get(['other', 1])!);
    expect((await t.ledger.verify('acme')).firstBrokenSeq).toBe(1);
    expect((await t.ledger.verify('other')).ok).toBe(true);
  });

  it('finds a consistently rewritten chain through the signed checkpoints', async () => {
    // Build a forged but internally valid chain (edit at seq 5) in another store and copy it over the real one.
    const forger = new TempLedger({ checkpointEvery: 1_000_000 });
    try {
      for (let i = 0; i < SIZE; i += 8) {
        await forger.ledger.append('acme', Array.from({ length: 8 }, (_, j) => event(i + j + 1, { agent: 'a', ...(i + j + 1 === 5 ? { payload: { forged: true } } : {}) })));
      }
      const forged = rawEntries(forger.root);
      for (let seq = 1; seq <= SIZE; seq++) await raw.put(['acme', seq], forged.get(['acme', seq])!);
    } finally {
      await forger.dispose();
    }
    const report = await t.ledger.verify('acme');
    expect(report).toMatchObject({ ok: false, firstBrokenSeq: 16 });
    expect(report.reason).toMatch(/entries 1\.\.16 differ from the signed checkpoint/);
  });

  it('finds a tampered Merkle subtree root', async () => {
    const record = Buffer.from(raw.get(['acme', 32])!);
    record[34 + 32 * 4] = record[34 + 32 * 4]! ^ 1; // level-5 root (leaves 1..32)
    await raw.put(['acme', 32], record);
    expect((await t.ledger.verify('acme')).firstBrokenSeq).toBe(32);
  });
});
