import { execFile } from 'node:child_process';
import { hash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Key } from 'lmdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../src/config.js';
import { checkpointSigningInput, type AnchoredCheckpoint, type CheckpointAnchor } from '../src/ledger/index.js';
import { LocalTsa } from './helpers/ledger/local-tsa.js';
import { assertBuilt, runCli } from './helpers/run-cli.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { poll } from '../../shared/test/helpers/poll.js';

/**
 * Anchoring through the gateway (docs/ledger.md, "Anchoring"): with ANCHOR_TSA_URL an enterprise tenant's checkpoints
 * are time-stamped by the TSA (a real `openssl ts -reply` on loopback) in the background, shown with the checkpoints,
 * checked by /v1/events/verify, `aduana ledger verify` and the offline verifier; other plans' checkpoints never reach
 * the TSA, and a TSA that is down delays tokens, not checkpoints.
 */
const VERIFIER = fileURLToPath(new URL('../../scripts/verify-ledger-export.mjs', import.meta.url));
let tsa: LocalTsa;
let t: TestGateway;
const tokens: Record<string, Awaited<ReturnType<TestGateway['tenant']>>> = {};

beforeAll(async () => {
  assertBuilt();
  tsa = await LocalTsa.start();
  t = await startTestGateway({ anchorTsaUrl: tsa.url, anchorTsaCert: tsa.certPath, anchorRetryBaseMs: 10, anchorRetryMaxMs: 50, checkpointEvery: 5 });
  tokens['ent'] = await t.tenant('ent', 'enterprise');
  tokens['pro'] = await t.tenant('pro', 'professional');
  tokens['com'] = await t.tenant('com', 'community');
});
afterAll(async () => {
  await t?.close();
  await tsa?.close();
});

const events = (n: number) => ({ events: Array.from({ length: n }, (_, i) => ({ event_type: 'tool.invoked', payload: { i } })) });

async function ingest(tenant: string, batches: number): Promise<void> {
  for (let b = 0; b < batches; b++) expect((await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tokens[tenant]!.operator, body: events(5) })).status).toBe(200);
}

async function checkpoints(tenant: string): Promise<AnchoredCheckpoint[]> {
  const r = await call(t.url, 'GET', '/v1/events/checkpoints', { token: tokens[tenant]!.viewer });
  expect(r.status).toBe(200);
  return r.body.data as AnchoredCheckpoint[];
}

const imprint = (cp: AnchoredCheckpoint): Buffer => hash('sha256', checkpointSigningInput(cp), 'buffer');

describe('checkpoint anchoring through the gateway (ANCHOR_TSA_URL)', () => {
  it("an enterprise tenant's checkpoints get tokens that /v1/events/verify checks; professional and community never reach the TSA", async () => {
    await ingest('ent', 2);
    await ingest('pro', 2);
    await ingest('com', 2);
    await poll(async () => (await checkpoints('ent')).length === 2 && (await checkpoints('ent')).every((cp) => cp.anchor?.status === 'anchored'), { what: 'tokens for ent' });
    for (const cp of await checkpoints('ent')) {
      expect(cp.anchor).toMatchObject({ status: 'anchored', token: expect.any(String), nonce: expect.stringMatching(/^\d+$/) });
      expect(tsa.sawImprint(imprint(cp))).toBe(true);
    }
    const latest = await call(t.url, 'GET', '/v1/events/checkpoints/latest', { token: tokens['ent']!.viewer });
    expect(latest.body.checkpoint).toMatchObject({ tree_size: 10, anchor: { status: 'anchored' } });
    expect((await call(t.url, 'GET', '/v1/events/verify', { token: tokens['ent']!.viewer })).body).toMatchObject({ ok: true, checkpointsChecked: 2, anchorsChecked: 2 });

    for (const tenant of ['pro', 'com']) {
      await poll(async () => (await checkpoints(tenant)).length === 2, { what: `the checkpoints of ${tenant}` }); // written after the answer
      const cps = await checkpoints(tenant);
      expect(cps.map((cp) => cp.tree_size)).toEqual([5, 10]);
      for (const cp of cps) {
        expect(cp.anchor).toBeUndefined();
        expect(tsa.sawImprint(imprint(cp))).toBe(false);
      }
      expect((await call(t.url, 'GET', '/v1/events/verify', { token: tokens[tenant]!.viewer })).body).toMatchObject({ ok: true, anchorsChecked: 0 });
    }
    const status = await call(t.url, 'GET', '/v1/telemetry/status', { token: tokens['ent']!.viewer });
    expect(status.body.anchoring).toMatchObject({ status: 'ACTIVE', pending: 0 });
  });

  it('a TSA that is down delays the token but not the checkpoint nor the events; the token arrives once it is back', async () => {
    tsa.down = true;
    const asked = tsa.requests.length;
    await ingest('ent', 1);
    await poll(async () => (await checkpoints('ent')).some((cp) => cp.tree_size === 15), { what: 'the checkpoint at 15' });
    expect((await checkpoints('ent')).find((cp) => cp.tree_size === 15)!.anchor).toEqual({ status: 'pending' });
    await poll(() => tsa.requests.length >= asked + 2, { what: 'the TSA to be asked again' });
    const degraded = await call(t.url, 'GET', '/v1/telemetry/status', { token: tokens['ent']!.viewer });
    expect(degraded.body.anchoring).toMatchObject({ status: 'DEGRADED', pending: 1 });
    await ingest('ent', 1); // events go on being accepted meanwhile
    tsa.down = false;
    await poll(async () => (await checkpoints('ent')).every((cp) => cp.anchor?.status === 'anchored') && (await checkpoints('ent')).length === 4, { what: 'tokens once the TSA is back' });
    expect((await call(t.url, 'GET', '/v1/events/verify', { token: tokens['ent']!.viewer })).body).toMatchObject({ ok: true, anchorsChecked: 4 });
  });

  it('`aduana ledger verify` and the offline verifier check the tokens, and report a tampered one', async () => {
    const env = { DATA_DIR: t.dataDir, LOG_LEVEL: 'silent', ANCHOR_TSA_CERT: tsa.certPath };
    const verify = await runCli(['ledger', 'verify', '--tenant', 'ent'], env);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^ent\tok\t20 entries\t4 checkpoints\t4 time-stamped/);
    const file = join(t.dataDir, 'ent.jsonl');
    expect((await runCli(['ledger', 'export', '--tenant', 'ent', '--out', file], env)).code).toBe(0);
    const offline = await promisify(execFile)(process.execPath, [VERIFIER, file, '--tsa-cert', tsa.certPath]);
    expect(offline.stdout).toMatch(/4 checkpoint\(s\) time-stamped \(RFC 3161\), every token verified/);

    // Checkpoint 10 given checkpoint 5's token: the CLI and the API name the checkpoint.
    const db = t.gw.deps.store.root.openDB<CheckpointAnchor, Key>({ name: 'ledger_anchors' });
    const at10 = db.get(['ent', 10])!;
    await db.put(['ent', 10], db.get(['ent', 5])!);
    try {
      const broken = await runCli(['ledger', 'verify', '--tenant', 'ent'], env);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(/^ent\tBROKEN at seq 10\tcheckpoint at tree size 10: its RFC 3161 time-stamp token time-stamps other data/);
      const api = await call(t.url, 'GET', '/v1/events/verify', { token: tokens['ent']!.viewer });
      expect(api.body).toMatchObject({ ok: false, firstBrokenSeq: 10 });
    } finally {
      await db.put(['ent', 10], at10);
    }
  });

  it('ANCHOR_URL is refused at start, naming its replacement', () => {
    expect(() => loadGatewayConfig({ ANCHOR_URL: 'http://127.0.0.1:9/anchor' })).toThrow(/ANCHOR_URL: removed.*ANCHOR_TSA_URL/);
  });
});
