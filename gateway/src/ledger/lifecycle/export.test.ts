import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FORMAT, type ExportHeader } from '../index.js';
import { verifyOffline } from '../../../test/helpers/ledger/offline-verifier.js';
import { event, TempLedger } from '../../../test/helpers/ledger/temp-ledger.js';

let t: TempLedger;
let file: string;
let lines: string[];


beforeAll(async () => {
  t = new TempLedger({ checkpointEvery: 10 });
  // Awkward JSON on purpose: the offline JCS must agree with the `canonicalize` package on all of it.
  const awkward = {
    numbers: [0, -0, 1e21, 1e-7, 123.456, -5e-324, 2 ** 53, 0.1 + 0.2],
    strings: ['é', '\u2028', '😀', 'quote " backslash \\ tab \t', '\u0001'],
    keys: { b: 1, a: 2, é: 3, '€': 4, '😀': 5, '\ud7ff': 6, '': 7, '10': 8, '9': 9 },
    nested: [{ z: null, y: [true, false] }],
  };
  for (let i = 0; i < 25; i++) await t.ledger.append('acme', [event(i, { agent: 'a', ...(i === 3 ? { payload: awkward } : {}) })]);
  file = join(t.dir, 'acme.jsonl');
  const out = createWriteStream(file);
  expect(await t.ledger.exportJsonl('acme', out)).toBe(25);
  out.end();
  await finished(out);
  lines = readFileSync(file, 'utf8').trimEnd().split('\n');
});
afterAll(async () => {
  await t.dispose();
});

describe('export and the offline verifier', () => {
  it('writes a header with the key and checkpoints, then one line per entry', () => {
    expect(lines).toHaveLength(26);
    const header = JSON.parse(lines[0]!) as ExportHeader;
    expect(header).toMatchObject({ format: EXPORT_FORMAT, kind: 'header', tenant_id: 'acme', size: 25 });
    expect(header.public_key.key_id).toBe(t.ledger.publicKey.key_id);
    expect(header.checkpoints.map((cp) => cp.tree_size)).toEqual([10, 20, 25]);
    expect(JSON.parse(lines[1]!)).toEqual(t.ledger.get('acme', 1));
    expect(JSON.parse(lines[25]!)).toEqual(t.ledger.get('acme', 25));
  });

  it('verifies an untouched export, also with the key pinned', async () => {
    const ok = await verifyOffline(t.dir, lines.join('\n') + '\n');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/OK {2}tenant acme: 25 entries/);
    const pem = join(t.dir, 'pub.pem');
    writeFileSync(pem, t.ledger.publicKey.pem);
    expect((await verifyOffline(t.dir, lines.join('\n'), ['--pubkey', pem])).code).toBe(0);
  });

  it('fails on a changed entry and names its seq', async () => {
    const tampered = [...lines];
    tampered[8] = tampered[8]!.replace('"query 7"', '"query 8"');
    const result = await verifyOffline(t.dir, tampered.join('\n'));
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/broken at seq 8: hash does not match/);
  });

  it('fails on a dropped, a reordered and a truncated export', async () => {
    const dropped = lines.filter((_, i) => i !== 12);
    expect((await verifyOffline(t.dir, dropped.join('\n'))).out).toMatch(/broken at seq 12: found seq 13/);
    const swapped = [...lines];
    [swapped[5], swapped[6]] = [swapped[6]!, swapped[5]!];
    expect((await verifyOffline(t.dir, swapped.join('\n'))).out).toMatch(/broken at seq 5/);
    const truncated = await verifyOffline(t.dir, lines.slice(0, -2).join('\n'));
    expect(truncated.code).toBe(1);
    expect(truncated.out).toMatch(/holds 23 entries, its header says 25/);
  });

  it('fails on a forged checkpoint and on a foreign pinned key', async () => {
    const header = JSON.parse(lines[0]!) as ExportHeader;
    header.checkpoints[0]!.root_hash = 'cd'.repeat(32);
    const forged = [JSON.stringify(header), ...lines.slice(1)];
    expect((await verifyOffline(t.dir, forged.join('\n'))).out).toMatch(/checkpoint at tree size 10: bad signature/);
    const other = new TempLedger();
    try {
      const pem = join(t.dir, 'other.pem');
      writeFileSync(pem, other.ledger.publicKey.pem);
      expect((await verifyOffline(t.dir, lines.join('\n'), ['--pubkey', pem])).code).toBe(1);
    } finally {
      await other.dispose();
    }
  });
});
