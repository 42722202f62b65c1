import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { editCanonical, lmdbCompressedEntries, storedEntries } from '../../../test/helpers/ledger/raw-entries.js';
import { event, TempLedger } from '../../../test/helpers/ledger/temp-ledger.js';
import { isCompressedRecord, recordCanonical } from './record-codec.js';
import { compressText } from './record-compression.js';

/** A proxied call's entry, about the size and shape the proxy writes. */
function proxyCall(i: number) {
  return event(i, {
    event_type: 'proxy.chat.completions',
    agent: `agent-${i}`,
    metadata: { agent_id: `agent-${i}`, trace_id: `${i}`.padStart(32, 'f') },
    payload: {
      cost_brl: 0.00024915,
      endpoint: 'chat',
      governance_us: 120 + i,
      input_redactions: 0,
      model: 'gpt-4o-mini',
      outcome: 'completed',
      output_redactions: 0,
      output_sha256: 'ab'.repeat(32),
      stages_us: { answer: 110 + i, policies: 90, redaction: 0, request: 240, upstream: 12_000 + i },
      stream: false,
      upstream_status: 200,
      usage: { completion_tokens: 18, prompt_tokens: 230, total_tokens: 248 },
    },
  });
}

describe('ledger records on disk', () => {
  let t: TempLedger | undefined;
  afterEach(async () => {
    await t?.dispose();
    t = undefined;
  });

  it('are stored as they are by default', async () => {
    t = new TempLedger({ checkpointEvery: 16 });
    await t.ledger.append('acme', [proxyCall(1)]);
    expect(storedEntries(t.root).get(['acme', 1])![0]).toBe(1);
  });

  it('with compression on, are stored compressed, and read back, verify and list as the exact canonical bytes', async () => {
    t = new TempLedger({ checkpointEvery: 16, compress: true });
    const entries = await t.ledger.append('acme', Array.from({ length: 40 }, (_, i) => proxyCall(i + 1)));
    const stored = storedEntries(t.root);
    let storedBytes = 0;
    let textBytes = 0;
    for (let seq = 1; seq <= 40; seq++) {
      const s = stored.get(['acme', seq])!;
      expect(isCompressedRecord(s)).toBe(true);
      const text = recordCanonical(s);
      storedBytes += s.length;
      textBytes += text.length;
      const canonical = JSON.parse(Buffer.from(text).toString('utf8')) as { seq: number; payload: { governance_us: number } };
      expect(canonical.seq).toBe(seq);
      expect(canonical.payload.governance_us).toBe(120 + seq);
    }
    // Less than half: the dictionary holds the keys every entry repeats.
    expect(storedBytes).toBeLessThan(textBytes / 2);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: 40 });
    expect(t.ledger.list('acme', { limit: 1 }).events[0]?.hash).toBe(entries[0]?.hash);
  });

  it('are stored with their hex strings packed (version 3): smaller than compressed alone (version 2), read back exactly', async () => {
    t = new TempLedger({ checkpointEvery: 16, compress: true });
    await t.ledger.append('acme', Array.from({ length: 40 }, (_, i) => proxyCall(i + 1)));
    const stored = storedEntries(t.root);
    let packedBytes = 0;
    let compressedBytes = 0;
    for (let seq = 2; seq <= 40; seq++) {
      const s = stored.get(['acme', seq])!;
      expect(s[0]).toBe(3);
      const text = Buffer.from(recordCanonical(s));
      expect(JSON.parse(text.toString('utf8'))).toMatchObject({ seq, metadata: { trace_id: `${seq}`.padStart(32, 'f') }, payload: { output_sha256: 'ab'.repeat(32) } });
      packedBytes += s.length - (34 + s[33]! * 32);
      compressedBytes += compressText(text).length;
    }
    // prev_hash, output_sha256 and trace_id: 80 bytes of hex digits fewer, less what LZ4 had already found in them.
    expect(packedBytes / 39).toBeLessThan(compressedBytes / 39 - 50);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: 40 });
  });

  it('compressed by the build before (version 2) still read, verify and chain on beside version 3', async () => {
    t = new TempLedger({ checkpointEvery: 16, compress: true });
    await t.ledger.append('acme', Array.from({ length: 20 }, (_, i) => proxyCall(i + 1)));
    await t.ledger.close();
    const stored = storedEntries(t.root);
    await t.root.transaction(() => {
      for (let seq = 1; seq <= 20; seq++) {
        const s = stored.get(['acme', seq])!;
        const textAt = 34 + s[33]! * 32;
        const v2 = Buffer.concat([s.subarray(0, textAt), compressText(Buffer.from(recordCanonical(s)))]);
        v2[0] = 2;
        stored.put(['acme', seq], v2);
      }
    });
    expect(stored.get(['acme', 5])![0]).toBe(2);
    await t.reopen({ checkpointEvery: 16, compress: true });
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: 20 });
    expect(t.ledger.get('acme', 7)?.payload['governance_us']).toBe(127);
    await t.ledger.append('acme', Array.from({ length: 12 }, (_, i) => proxyCall(21 + i)));
    expect(storedEntries(t.root).get(['acme', 25])![0]).toBe(3);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: 32 });
  });

  it('written before compression was on (stored as they are) still read, verify and chain on after a restart', async () => {
    t = new TempLedger({ checkpointEvery: 16, compress: true });
    await t.ledger.append('acme', Array.from({ length: 20 }, (_, i) => proxyCall(i + 1)));
    await t.ledger.close();
    // Rewrite every record uncompressed: the bytes a data dir from before compression existed holds.
    const stored = storedEntries(t.root);
    await t.root.transaction(() => {
      for (let seq = 1; seq <= 20; seq++) stored.put(['acme', seq], editCanonical(stored.get(['acme', seq])!, (text) => text));
    });
    expect(stored.get(['acme', 5])![0]).toBe(1);
    await t.reopen({ checkpointEvery: 16, compress: true });
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: 20 });
    await t.ledger.append('acme', Array.from({ length: 12 }, (_, i) => proxyCall(21 + i)));
    expect(isCompressedRecord(storedEntries(t.root).get(['acme', 25])!)).toBe(true);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: 32 });
  });

  it('compressed, still read and verify once compression is switched off, and new records are stored as they are', async () => {
    t = new TempLedger({ checkpointEvery: 16, compress: true });
    await t.ledger.append('acme', Array.from({ length: 10 }, (_, i) => proxyCall(i + 1)));
    await t.reopen({ checkpointEvery: 16, compress: false });
    await t.ledger.append('acme', Array.from({ length: 10 }, (_, i) => proxyCall(11 + i)));
    const stored = storedEntries(t.root);
    expect(isCompressedRecord(stored.get(['acme', 3])!)).toBe(true);
    expect(stored.get(['acme', 13])![0]).toBe(1);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: 20 });
    const out: Buffer[] = [];
    const sink = new PassThrough();
    sink.on('data', (d: Buffer) => out.push(d));
    expect(await t.ledger.exportJsonl('acme', sink)).toBe(20);
    expect(Buffer.concat(out).toString('utf8')).toContain('"governance_us":123');
  });

  it.each([true, false])('compressed by lmdb-js (as earlier builds stored them), still read, verify and chain on (compression %s)', async (compress) => {
    t = new TempLedger({ checkpointEvery: 16 });
    await t.ledger.append('acme', Array.from({ length: 20 }, (_, i) => proxyCall(i + 1)));
    await t.ledger.close();
    const stored = storedEntries(t.root);
    const legacy = lmdbCompressedEntries(t.root);
    await t.root.transaction(() => {
      for (let seq = 1; seq <= 20; seq++) legacy.put(['acme', seq], Buffer.from(stored.get(['acme', seq])!));
    });
    expect(stored.get(['acme', 7])![0]).toBeGreaterThanOrEqual(250); // lmdb-js's compressed-value header
    await t.reopen({ checkpointEvery: 16, compress });
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: 20 });
    expect(t.ledger.get('acme', 7)?.payload['governance_us']).toBe(127);
    await t.ledger.append('acme', Array.from({ length: 4 }, (_, i) => proxyCall(21 + i)));
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: 24 });
  });

  it('compressed, verify on the worker thread too (long chains)', async () => {
    t = new TempLedger({ checkpointEvery: 16, compress: true, verifyWorkerThreshold: 1 });
    await t.ledger.append('acme', Array.from({ length: 40 }, (_, i) => proxyCall(i + 1)));
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: 40 });
    const stored = storedEntries(t.root);
    const record = Buffer.from(stored.get(['acme', 9])!);
    const garbled = Buffer.from(record);
    garbled[record.length - 5] = garbled[record.length - 5]! ^ 0x20;
    await stored.put(['acme', 9], garbled);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: 9 });
  });

  it('a damaged compressed record breaks verification at its seq, and reading it fails cleanly', async () => {
    t = new TempLedger({ checkpointEvery: 16, compress: true });
    await t.ledger.append('acme', Array.from({ length: 12 }, (_, i) => proxyCall(i + 1)));
    const stored = storedEntries(t.root);
    const record = Buffer.from(stored.get(['acme', 6])!);
    const textAt = 34 + record[33]! * 32;
    const huge = Buffer.from(record);
    huge.writeUInt32LE(0x7fffffff, textAt); // an uncompressed size no record of this length can have
    await stored.put(['acme', 6], huge);
    expect(() => recordCanonical(huge)).toThrow(RangeError);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: 6 });
    const garbled = Buffer.from(record);
    garbled[record.length - 3] = garbled[record.length - 3]! ^ 0xff;
    await stored.put(['acme', 6], garbled);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: false, firstBrokenSeq: 6 });
    await stored.put(['acme', 6], record);
    expect(await t.ledger.verify('acme')).toMatchObject({ ok: true, checked: 12 });
  });
});
