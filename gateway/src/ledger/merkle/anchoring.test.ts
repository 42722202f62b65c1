import { hash } from 'node:crypto';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Key } from 'lmdb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkpointSigningInput, type Checkpoint, type CheckpointAnchor, type ExportHeader, type LedgerOptions } from '../index.js';
import { verifyOffline } from '../../../test/helpers/ledger/offline-verifier.js';
import { event, TempLedger } from '../../../test/helpers/ledger/temp-ledger.js';
import { LocalTsa } from '../../../test/helpers/ledger/local-tsa.js';
import { poll } from '../../../../shared/test/helpers/poll.js';

/**
 * RFC 3161 anchoring (docs/ledger.md, "Anchoring"): the checkpoints of the tenants picked (the enterprise plan's, in
 * the gateway) are time-stamped by a real TSA (`openssl ts -reply` on loopback) in the background; the tokens are
 * stored with their checkpoints, checked by verify() and by the offline verifier, and never slow a checkpoint down.
 */

let tsa: LocalTsa;
let otherTsa: LocalTsa;
const open: TempLedger[] = [];
beforeAll(async () => {
  [tsa, otherTsa] = await Promise.all([LocalTsa.start(), LocalTsa.start()]);
});
afterEach(async () => {
  for (const t of open.splice(0)) await t.dispose();
  tsa.down = false;
});
afterAll(async () => {
  await Promise.all([tsa?.close(), otherTsa?.close()]);
});

function temp(options: Partial<LedgerOptions>): TempLedger {
  const t = new TempLedger(options);
  open.push(t);
  return t;
}

function imprint(cp: Checkpoint): Buffer {
  return hash('sha256', checkpointSigningInput(cp), 'buffer');
}

async function appendSingles(t: TempLedger, tenant: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await t.ledger.append(tenant, [event(i)]);
}

/** The tenant has `count` checkpoints (their writes are not awaited by appends), every one time-stamped. */
function allAnchored(t: TempLedger, tenant: string, count: number): boolean {
  const cps = t.ledger.checkpoints(tenant);
  return cps.length === count && cps.every((cp) => t.ledger.anchorOf(tenant, cp.tree_size)?.status === 'anchored');
}

/** The stored tokens, opened as the ledger opens them: how the tamper tests change them behind the API's back. */
function anchorsDb(t: TempLedger) {
  return t.root.openDB<CheckpointAnchor, Key>({ name: 'ledger_anchors' });
}

const enterpriseOnly = (tsaUrl: string, extra: Partial<NonNullable<LedgerOptions['anchoring']>> = {}): LedgerOptions['anchoring'] => ({
  tenant: (id) => id === 'big',
  tsaUrl,
  baseDelayMs: 10,
  maxDelayMs: 40,
  ...extra,
});

describe('time-stamped checkpoints (RFC 3161)', () => {
  it("time-stamps the chosen tenant's checkpoints, which verify() checks; another tenant's never reach the TSA", async () => {
    const t = temp({ checkpointEvery: 5, anchoring: enterpriseOnly(tsa.url) });
    await appendSingles(t, 'big', 12);
    await appendSingles(t, 'small', 12);
    await t.root.flushed; // checkpoint writes are not awaited by appends
    await poll(() => allAnchored(t, 'big', 2), { what: 'tokens for every checkpoint of big' });
    const big = t.ledger.checkpoints('big');
    expect(big.map((cp) => cp.tree_size)).toEqual([5, 10]);
    for (const cp of big) {
      const anchor = t.ledger.anchorOf('big', cp.tree_size);
      expect(anchor).toMatchObject({ status: 'anchored', nonce: expect.stringMatching(/^\d+$/), gen_time: expect.any(String) });
      expect(tsa.sawImprint(imprint(cp))).toBe(true);
    }
    expect(await t.ledger.verify('big')).toMatchObject({ ok: true, checkpointsChecked: 2, anchorsChecked: 2 });
    const small = t.ledger.checkpoints('small');
    expect(small.map((cp) => cp.tree_size)).toEqual([5, 10]);
    for (const cp of small) {
      expect(t.ledger.anchorOf('small', cp.tree_size)).toBeNull();
      expect(tsa.sawImprint(imprint(cp))).toBe(false);
    }
    expect(await t.ledger.verify('small')).toMatchObject({ ok: true, checkpointsChecked: 2, anchorsChecked: 0 });
    expect(t.ledger.anchorStats).toMatchObject({ status: 'ACTIVE', pending: 0, anchored: 2 });
  });

  it("reports a tampered token, another checkpoint's token, a wrong nonce, and a token the pinned TSA did not sign", async () => {
    const t = temp({ checkpointEvery: 5, anchoring: enterpriseOnly(tsa.url) });
    await appendSingles(t, 'big', 10);
    await poll(() => allAnchored(t, 'big', 2), { what: 'tokens for every checkpoint of big' });
    const db = anchorsDb(t);
    const at5 = db.get(['big', 5])!;
    const at10 = db.get(['big', 10])!;
    const expectBroken = async (reason: RegExp, seq = 5) => {
      const r = await t.ledger.verify('big');
      expect(r).toMatchObject({ ok: false, firstBrokenSeq: seq });
      expect(r.reason).toMatch(reason);
    };

    const flipped = Buffer.from(at5.token, 'base64');
    flipped.writeUInt8(flipped.readUInt8(flipped.length - 20) ^ 0x01, flipped.length - 20); // inside the signature
    await db.put(['big', 5], { ...at5, token: flipped.toString('base64') });
    await expectBroken(/time-stamp token (has a bad signature|does not verify)/);

    await db.put(['big', 5], at10); // the token of checkpoint 10, nonce and all, stored for checkpoint 5
    await expectBroken(/time-stamps other data/);

    await db.put(['big', 5], { ...at5, nonce: (BigInt(at5.nonce) + 1n).toString() });
    await expectBroken(/nonce/);

    await db.put(['big', 5], at5);
    expect(await t.ledger.verify('big')).toMatchObject({ ok: true, anchorsChecked: 2 });

    await t.reopen({ tsaCertPem: otherTsa.certPem });
    await expectBroken(/pinned TSA certificate/);
    await t.reopen({ tsaCertPem: tsa.caPem });
    expect(await t.ledger.verify('big')).toMatchObject({ ok: true, anchorsChecked: 2 });
    await t.reopen({ tsaCertPem: tsa.certPem });
    expect(await t.ledger.verify('big')).toMatchObject({ ok: true, anchorsChecked: 2 });
  });

  it('a TSA that is down delays the token, never the checkpoint; the token arrives once it is back, across a restart', async () => {
    tsa.down = true;
    const errors: unknown[] = [];
    const options: Partial<LedgerOptions> = { checkpointEvery: 3, anchoring: enterpriseOnly(tsa.url), onError: (err) => errors.push(err) };
    const t = temp(options);
    const before = tsa.requests.length;
    await appendSingles(t, 'big', 6);
    await t.root.flushed;
    expect(t.ledger.checkpoints('big').map((cp) => cp.tree_size)).toEqual([3, 6]);
    expect(t.ledger.anchorOf('big', 3)).toEqual({ status: 'pending' });
    expect(t.ledger.head('big').size).toBe(6);
    await poll(() => tsa.requests.length >= before + 3, { what: 'the TSA to be tried again' });
    expect(t.ledger.anchorStats).toMatchObject({ status: 'DEGRADED', pending: 2, anchored: 0 });
    expect(String(errors[0])).toMatch(/time-stamping checkpoint big@3 failed \(retried\): the TSA answered HTTP 503/);

    await t.reopen(options); // the queue is in LMDB: a restart keeps it
    expect(t.ledger.anchorOf('big', 6)).toEqual({ status: 'pending' });
    tsa.down = false;
    await poll(() => allAnchored(t, 'big', 2), { what: 'tokens once the TSA is back' });
    expect(await t.ledger.verify('big')).toMatchObject({ ok: true, anchorsChecked: 2 });
    expect(t.ledger.anchorStats).toMatchObject({ status: 'ACTIVE', pending: 0, anchored: 2 });
  });

  it('a process without a TSA only queues: the one with a TSA sends what it finds in the queue', async () => {
    const t = temp({ checkpointEvery: 4, anchoring: { tenant: () => true } });
    await appendSingles(t, 'big', 4);
    await t.root.flushed;
    expect(t.ledger.anchorOf('big', 4)).toEqual({ status: 'pending' });
    expect(t.ledger.anchorStats).toBeNull();
    await t.reopen({ anchoring: enterpriseOnly(tsa.url) });
    await poll(() => allAnchored(t, 'big', 1), { what: 'the queued checkpoint to be time-stamped' });
  });
});

describe('time-stamps in exports and the offline verifier', () => {
  let t: TempLedger;
  let lines: string[];
  function withHeader(edit: (h: ExportHeader) => void): string {
    const h = JSON.parse(lines[0]!) as ExportHeader;
    edit(h);
    return [JSON.stringify(h), ...lines.slice(1)].join('\n') + '\n';
  }
  const pem = (name: string, text: string): string => {
    const path = join(t.dir, name);
    writeFileSync(path, text);
    return path;
  };

  beforeAll(async () => {
    t = new TempLedger({ checkpointEvery: 4, anchoring: enterpriseOnly(tsa.url) });
    await appendSingles(t, 'big', 12);
    await poll(() => allAnchored(t, 'big', 3), { what: 'tokens for every checkpoint of big' });
    const file = join(t.dir, 'big.jsonl');
    const out = createWriteStream(file);
    await t.ledger.exportJsonl('big', out);
    out.end();
    await finished(out);
    lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it('carries each checkpoint with its token, and the offline verifier checks them', async () => {
    const header = JSON.parse(lines[0]!) as ExportHeader;
    expect(header.checkpoints.map((cp) => [cp.tree_size, cp.anchor?.status])).toEqual([
      [4, 'anchored'],
      [8, 'anchored'],
      [12, 'anchored'],
    ]);
    const ok = await verifyOffline(t.dir, lines.join('\n') + '\n');
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(/3 checkpoint\(s\) time-stamped \(RFC 3161\), every token verified/);
    for (const pinned of [tsa.certPem, tsa.caPem]) {
      const r = await verifyOffline(t.dir, lines.join('\n') + '\n', ['--tsa-cert', pem('pin.pem', pinned)]);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/\(pinned\)/);
    }
  });

  it('fails on a tampered token, a swapped token, a wrong nonce or another TSA', async () => {
    const anchorOf = (h: ExportHeader, i: number) => h.checkpoints[i]!.anchor as { status: 'anchored' } & CheckpointAnchor;
    const cases: [string, string, string[]][] = [
      [
        'tampered',
        withHeader((h) => {
          const token = Buffer.from(anchorOf(h, 1).token, 'base64');
          token.writeUInt8(token.readUInt8(token.length - 20) ^ 0x01, token.length - 20);
          anchorOf(h, 1).token = token.toString('base64');
        }),
        [],
      ],
      ['swapped', withHeader((h) => (h.checkpoints[1]!.anchor = anchorOf(h, 2))), []],
      ['nonce', withHeader((h) => (anchorOf(h, 1).nonce = '12345')), []],
      ['other TSA', lines.join('\n') + '\n', ['--tsa-cert', pem('other.pem', otherTsa.certPem)]],
    ];
    for (const [what, text, extra] of cases) {
      const r = await verifyOffline(t.dir, text, extra);
      expect(r.code, `${what}: ${r.out}`).toBe(1);
      expect(r.out, what).toMatch(/checkpoint at tree size (8|4): time-stamp token/);
    }
  });
});
