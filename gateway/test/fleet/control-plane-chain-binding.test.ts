import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { canonicalJson, createLogger } from '@aduana/shared';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { loadGatewayConfig } from '../../src/config.js';
import { CheckpointSigner, type Checkpoint, type LedgerPublicKey } from '../../src/ledger/merkle/checkpoint.js';
import type { LedgerEntry } from '../../src/ledger/index.js';
import { startControlPlane, type RunningControlPlane } from '../../src/control-plane.js';
import { openPostgresRepositories, type PostgresRepositories } from '../../src/fleet/postgres/open-postgres-repositories.js';
import { SHIPPING_FORMAT } from '../../src/fleet/shipping/shipping-format.js';
import { call, expectEnvelope, type CallResult } from '../helpers/start-test-gateway.js';
import { startSidecar, type TestSidecar } from '../helpers/fleet-control-plane.js';

/**
 * Who may append to a shipped chain (docs/fleet.md, "Shipping the ledger"): a real PostgreSQL, a real control plane
 * and a real sidecar in this process, and a second sidecar token of the same tenant in the hands of a test that
 * forges batches over HTTP from what any `runtime:read` token can read.
 */

let pg: LocalPostgres;
let databaseUrl = '';
const dirs: string[] = [];
let cp: RunningControlPlane;
let repos: PostgresRepositories;
let sidecar: TestSidecar;
let sidecarDir = '';
let tokenA = { token: '', id: '' };
let tokenB = '';
let operator = '';
let viewer = '';

const tmp = (name: string): string => {
  const d = mkdtempSync(join(tmpdir(), `aduana-cpbind-${name}-`));
  dirs.push(d);
  return d;
};

const decide = (base: string, text: string): Promise<CallResult> =>
  call(base, 'POST', '/v1/decide', { token: operator, body: { agent_id: 'bind-agent', action: { type: 'chat', payload: { text } } } });

interface Chain {
  chain_id: string;
  instance_id: string;
  public_key: LedgerPublicKey;
  head: { size: number; hash: string };
}

/** What any runtime:read token reads of the sidecar's chain at the control plane (beside the control plane's own). */
async function chain(): Promise<Chain> {
  const r = await call(cp.url, 'GET', '/v1/fleet/chains', { token: viewer });
  expect(r.status, r.text).toBe(200);
  const shipped = (r.body.data as Chain[]).filter((c) => c.instance_id !== 'control-plane');
  expect(shipped).toHaveLength(1);
  return shipped[0]!;
}

const localHead = async (): Promise<number> => (await call(sidecar.url, 'GET', '/v1/events?order=desc&limit=1', { token: operator })).body.events[0]?.seq ?? 0;

/** Waits until the sidecar's chain has at least `min` entries (a decision's is group-committed) and the control plane holds them all. */
async function shipped(min = 0): Promise<Chain> {
  let c: Chain | undefined;
  await vi.waitFor(
    async () => {
      const local = await localHead();
      expect(local).toBeGreaterThanOrEqual(min);
      c = await chain();
      expect(c.head.size).toBe(local);
    },
    { timeout: 10_000, interval: 25 },
  );
  return c as Chain;
}

async function verifyOk(): Promise<void> {
  const v = await call(cp.url, 'GET', '/v1/events/verify', { token: viewer });
  expect(v.status, v.text).toBe(200);
  expect(v.body.ok, v.text).toBe(true);
}

/** An entry that links to `prev` and hashes right: what a forger can make without the sidecar's key. */
function forgedEntry(seq: number, prevHash: string, tenantId = 'default'): LedgerEntry {
  const entry = {
    created_at: new Date().toISOString(),
    decision: null,
    event_type: 'decision',
    metadata: { agent_id: 'bind-agent' },
    payload: { forged: true, seq },
    prev_hash: prevHash,
    seq,
    tenant_id: tenantId,
  };
  return { ...entry, hash: createHash('sha256').update(entry.prev_hash + canonicalJson(entry)).digest('hex') };
}

const ship = (token: string, body: unknown): Promise<CallResult> => call(cp.url, 'POST', '/v1/fleet/ledger', { token, body });
const batch = (c: Pick<Chain, 'chain_id' | 'public_key'>, entries: LedgerEntry[], checkpoints: Checkpoint[], tenantId = 'default') => ({
  format: SHIPPING_FORMAT,
  chain_id: c.chain_id,
  tenant_id: tenantId,
  public_key: c.public_key,
  entries,
  checkpoints,
});

/** A checkpoint over `entries` (from seq 1) signed by a key of the test's own. */
function ownCheckpoint(signer: CheckpointSigner, tenantId: string, entries: readonly LedgerEntry[]): Checkpoint {
  // One leaf: the root is the leaf hash, SHA-256(0x00 ‖ entry hash) (RFC 9162).
  expect(entries).toHaveLength(1);
  const root = createHash('sha256').update(Buffer.concat([Buffer.from([0]), Buffer.from(entries[0]!.hash, 'hex')])).digest('hex');
  return signer.sign({ tenant_id: tenantId, tree_size: 1, root_hash: root, timestamp: new Date().toISOString() });
}

const boundTo = async (chainId: string): Promise<string | null> =>
  ((await repos.pool.query('SELECT sidecar_token_id FROM ledger_chains WHERE chain_id = $1', [chainId])).rows[0]?.sidecar_token_id as string | null) ?? null;

beforeAll(async () => {
  pg = await startLocalPostgres();
  databaseUrl = await pg.createDatabase('cp_chain_binding');
  cp = await startControlPlane({
    config: loadGatewayConfig({}, { databaseUrl, dataDir: tmp('control'), port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent' }),
    logger: createLogger('control', { level: 'silent' }),
  });
  const admin = cp.bootstrapToken as string;
  repos = await openPostgresRepositories(databaseUrl, { sessionTtlMs: 3_600_000 });
  const a = await repos.sidecarTokens.create('sidecar-a', null);
  tokenA = { token: a.token, id: a.record.id };
  tokenB = (await repos.sidecarTokens.create('sidecar-b', null)).token;
  expect(await repos.tenants.setPlan('default', 'enterprise', 'test')).toBeDefined();
  for (const role of ['operator', 'viewer'] as const) {
    const t = await call(cp.authUrl, 'POST', '/token', { token: admin, body: { name: `bind ${role}`, role } });
    expect(t.status, t.text).toBe(200);
    if (role === 'operator') operator = t.body.token;
    else viewer = t.body.token;
  }
  sidecarDir = tmp('sidecar');
  sidecar = await startSidecar(cp.url, tokenA.token, sidecarDir, { shipLingerMs: 0 });
  await vi.waitFor(async () => expect((await decide(sidecar.url, 'warm-up')).status).toBe(200), { timeout: 10_000, interval: 50 });
  for (let i = 0; i < 2; i++) expect((await decide(sidecar.url, `before ${i}`)).status).toBe(200);
  await shipped(3);
}, 120_000);

afterAll(async () => {
  await sidecar?.close();
  await repos?.close();
  await cp?.close();
  await pg?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 60_000);

describe('a shipped chain belongs to the sidecar token that opened it', () => {
  it('another sidecar token of the tenant cannot append to it: 403, verify stays ok, the real sidecar keeps shipping', async () => {
    const before = await shipped();
    // The victim's pinned key and head hash, as a runtime:read token reads them.
    const forged = forgedEntry(before.head.size + 1, before.head.hash);
    const refused = expectEnvelope(await ship(tokenB, batch(before, [forged], [])), 403, 'permission_denied');
    expect(refused.message).toMatch(/chain_bound/);
    expect(refused.message).toContain(before.chain_id);
    // With a checkpoint covering it, signed with a key of its own, or presenting that key instead of the pinned one:
    // the chain is still not this token's.
    const attacker = CheckpointSigner.load(tmp('attacker-key'));
    const selfSigned = attacker.sign({ tenant_id: 'default', tree_size: forged.seq, root_hash: 'a'.repeat(64), timestamp: new Date().toISOString() });
    expect(expectEnvelope(await ship(tokenB, batch(before, [forged], [selfSigned])), 403, 'permission_denied').message).toMatch(/chain_bound/);
    expect(expectEnvelope(await ship(tokenB, batch({ ...before, public_key: attacker.publicKey }, [forged], [selfSigned])), 403, 'permission_denied').message).toMatch(/chain_bound/);
    expect((await chain()).head).toEqual(before.head);
    await verifyOk();

    // The real sidecar's next entries are taken: no fork, no refusal.
    for (let i = 0; i < 3; i++) expect((await decide(sidecar.url, `after ${i}`)).status).toBe(200);
    const after = await shipped(before.head.size + 3);
    expect(after.head.size).toBe(before.head.size + 3);
    await verifyOk();
    expect((await call(sidecar.url, 'GET', '/health')).body.fleet.shipping.failures).toBe(0);
  });

  it('nor open another chain of the same sidecar instance', async () => {
    const c = await chain();
    const attacker = CheckpointSigner.load(tmp('attacker-key-2'));
    const first = forgedEntry(1, '0'.repeat(64), 'other');
    const body = batch({ chain_id: `${c.instance_id}/other`, public_key: attacker.publicKey }, [first], [ownCheckpoint(attacker, 'other', [first])], 'other');
    expect(expectEnvelope(await ship(tokenB, body), 403, 'permission_denied').message).toMatch(/chain_bound/);
    expect((await repos.pool.query("SELECT count(*) AS n FROM ledger_chains WHERE instance_id = $1", [c.instance_id])).rows[0].n).toBe('1');
  });

  it('the right token still needs a checkpoint signed by the chain\'s key covering the batch\'s last entry', async () => {
    const c = await shipped();
    const forged = forgedEntry(c.head.size + 1, c.head.hash);
    // No checkpoint at all.
    expect(expectEnvelope(await ship(tokenA.token, batch(c, [forged], [])), 422, 'invalid_request').message).toMatch(/checkpoint covering entry \d+/);
    // The chain's latest stored checkpoint (public): it does not cover the new entry.
    const stored = await call(cp.url, 'GET', `/v1/events/checkpoints?chain_id=${encodeURIComponent(c.chain_id)}&limit=500`, { token: viewer });
    const latest = stored.body.data[stored.body.data.length - 1] as Checkpoint;
    expect(latest.tree_size).toBe(c.head.size);
    expect(expectEnvelope(await ship(tokenA.token, batch(c, [forged], [latest])), 422, 'invalid_request').message).toMatch(/checkpoint covering entry \d+/);
    // A checkpoint at the right size with the chain's key id but a signature that is not the key's.
    const unsigned = { ...latest, tree_size: forged.seq, root_hash: 'b'.repeat(64) };
    expect(expectEnvelope(await ship(tokenA.token, batch(c, [forged], [unsigned])), 422, 'invalid_request').message).toMatch(/bad signature/);
    // Signed by another key.
    const other = CheckpointSigner.load(tmp('other-key'));
    const foreign = other.sign({ tenant_id: 'default', tree_size: forged.seq, root_hash: 'c'.repeat(64), timestamp: new Date().toISOString() });
    expect(expectEnvelope(await ship(tokenA.token, batch(c, [forged], [foreign])), 422, 'invalid_request').message).toMatch(/bad signature/);
    expect((await chain()).head).toEqual(c.head);
    await verifyOk();
    expect((await decide(sidecar.url, 'still shipping')).status).toBe(200);
    expect((await shipped(c.head.size + 1)).head.size).toBe(c.head.size + 1);
  });

  it('a chain stored by an earlier build (no binding) is bound by the first batch that appends to it, not by a replay', async () => {
    const c = await shipped();
    await repos.pool.query('UPDATE ledger_chains SET sidecar_token_id = NULL WHERE chain_id = $1', [c.chain_id]);
    // Another token replays what the control plane already holds (entries and their covering checkpoint, all public).
    const listed = await call(cp.url, 'GET', `/v1/events?chain_id=${encodeURIComponent(c.chain_id)}&limit=500`, { token: viewer });
    const entries = listed.body.events.map(({ chain_id: _c, ...e }: LedgerEntry & { chain_id: string }) => e) as LedgerEntry[];
    const stored = await call(cp.url, 'GET', `/v1/events/checkpoints?chain_id=${encodeURIComponent(c.chain_id)}&limit=500`, { token: viewer });
    const replay = await ship(tokenB, batch(c, entries, stored.body.data.filter((cp: Checkpoint) => cp.tree_size <= c.head.size)));
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body.acked_seq).toBe(c.head.size);
    expect(await boundTo(c.chain_id)).toBeNull();
    // The sidecar's next batch binds it to its token; the other token is refused from then on.
    expect((await decide(sidecar.url, 'binds it')).status).toBe(200);
    const after = await shipped(c.head.size + 1);
    expect(await boundTo(c.chain_id)).toBe(tokenA.id);
    const next = forgedEntry(after.head.size + 1, after.head.hash);
    const signer = CheckpointSigner.load(tmp('attacker-key-3'));
    const covering = signer.sign({ tenant_id: 'default', tree_size: next.seq, root_hash: 'd'.repeat(64), timestamp: new Date().toISOString() });
    expect(expectEnvelope(await ship(tokenB, batch(after, [next], [covering])), 403, 'permission_denied').message).toMatch(/chain_bound/);
    await verifyOk();
  });

  it('a token rotated with `sidecar-token rotate` keeps its chains; the old one is revoked', async () => {
    const c = await shipped();
    const rotated = await repos.sidecarTokens.rotate(tokenA.id);
    expect(rotated.kind).toBe('rotated');
    if (rotated.kind !== 'rotated') return;
    expect(rotated.record).toMatchObject({ name: 'sidecar-a', tenants: null, chain_owner: tokenA.id, revoked_at: null });
    await sidecar.stop();
    sidecar = await startSidecar(cp.url, rotated.token, sidecarDir, { shipLingerMs: 0 });
    await vi.waitFor(async () => expect((await decide(sidecar.url, 'with the new token')).status).toBe(200), { timeout: 10_000, interval: 50 });
    const after = await shipped(c.head.size + 1);
    expect(after.chain_id).toBe(c.chain_id);
    expect(after.head.size).toBeGreaterThan(c.head.size);
    expect(await boundTo(c.chain_id)).toBe(tokenA.id);
    await verifyOk();
    await vi.waitFor(async () => expectEnvelope(await ship(tokenA.token, batch(after, [], [])), 401, 'authentication_error'), { timeout: 5000, interval: 25 });
    // A rotated token is rotated once: its successor is the one to rotate next.
    expect((await repos.sidecarTokens.rotate(tokenA.id)).kind).toBe('already_rotated');
    expect((await repos.sidecarTokens.rotate('sct_unknown')).kind).toBe('not_found');
  });
});
