import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '@aduana/shared';
import { CheckpointSigner, type Checkpoint } from '../src/ledger/merkle/checkpoint.js';
import { verifyConsistency, verifyInclusion, type LedgerEntry } from '../src/ledger/index.js';
import { SHIPPING_FORMAT, type ShippedBatch } from '../src/fleet/shipping/shipping-format.js';
import { TempLedger } from './helpers/ledger/temp-ledger.js';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MemorySidecarTokens, startArchiveDb, startArchiveServer, type ArchiveDb, type ArchiveServer } from './helpers/fleet/archive-server.js';

// The control plane's ledger ingest through the real route: a real sidecar ledger (LMDB in a temp dir) produces the
// entries and signed checkpoints, a real PostgreSQL stores them, a real HTTP server takes the batches.
let db: ArchiveDb;
let cp: ArchiveServer;
let gw: TestGateway;
const tokens = new MemorySidecarTokens();
let sidecarToken: string;
let pats: { viewer: string; other: string };
const side = new TempLedger({ checkpointEvery: 1_000_000, checkpointIntervalMs: 3_600_000 });
const TENANT = 'acme';
const CHAIN = `inst-a/${TENANT}`;

beforeAll(async () => {
  db = await startArchiveDb('ingest');
  gw = await startTestGateway();
  const acme = await gw.tenant(TENANT);
  const other = await gw.tenant('other');
  pats = { viewer: acme.viewer, other: other.viewer };
  cp = await startArchiveServer(db.archive, tokens, { authenticator: gw.gw.deps.authenticator, maxBody: 2 * 1024 * 1024, maxEntries: 500 });
  sidecarToken = (await tokens.create('sidecar-a', [TENANT])).token;
}, 60_000);
afterAll(async () => {
  await cp?.close();
  await gw?.close();
  await side.dispose();
  await db?.close();
});

async function append(n: number, tag: string): Promise<LedgerEntry[]> {
  return side.ledger.append(
    TENANT,
    Array.from({ length: n }, (_, i) => ({ event_type: i % 2 ? 'tool_call' : 'prompt', payload: { tag, i, text: 'olá ✓' }, metadata: { agent_id: `agent-${i % 3}` }, decision: null })),
  );
}

/** Signs a checkpoint at the head now and waits until it is readable (the ledger stores it in the background). */
async function checkpointNow(): Promise<Checkpoint> {
  const made = side.ledger.checkpointNow(TENANT)!;
  await side.root.committed;
  return made;
}

/**
 * A batch as the shipper makes it: the entries, the given checkpoints (by default the stored ones within them), and
 * one signed for the last entry when none of those covers it (the control plane refuses a batch without it).
 */
function batchOf(entries: LedgerEntry[], checkpoints = side.ledger.checkpoints(TENANT).filter((c) => entries.some((e) => e.seq === c.tree_size))): ShippedBatch {
  const last = entries[entries.length - 1]?.seq;
  const covered = last === undefined || checkpoints.some((c) => c.tree_size === last);
  return { ...rawBatch(entries, checkpoints), checkpoints: covered ? checkpoints : [...checkpoints, side.ledger.signCheckpoint(TENANT, last)] };
}

/** Exactly these entries and checkpoints. */
function rawBatch(entries: LedgerEntry[], checkpoints: Checkpoint[]): ShippedBatch {
  return { format: SHIPPING_FORMAT, chain_id: CHAIN, tenant_id: TENANT, public_key: side.ledger.publicKey, entries, checkpoints };
}

const ship = (body: unknown, token = sidecarToken) => call(cp.url, 'POST', '/v1/fleet/ledger', { token, body });
const stored = async (): Promise<number> => Number((await db.pool.query("SELECT count(*) AS n FROM ledger_entries WHERE chain_id = $1", [CHAIN])).rows[0].n);
const headSeq = async (): Promise<number> => Number((await db.pool.query('SELECT head_seq FROM ledger_chains WHERE chain_id = $1', [CHAIN])).rows[0]?.head_seq ?? 0);
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function rehash(e: LedgerEntry): LedgerEntry {
  const { hash: _drop, ...rest } = e;
  return { ...e, hash: createHash('sha256').update(e.prev_hash + canonicalJson(rest)).digest('hex') };
}

describe('POST /v1/fleet/ledger (control plane ingest)', () => {
  it('stores a verified batch with its checkpoint and acknowledges the head', async () => {
    await append(25, 'first');
    await checkpointNow();
    const entries = side.ledger.list(TENANT, { limit: 100 }).events;
    const batch = batchOf(entries);
    expect(batch.checkpoints).toHaveLength(1);
    const r = await ship(batch);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ chain_id: CHAIN, acked_seq: 25 });
    expect(await stored()).toBe(25);
    const cps = await db.pool.query('SELECT tree_size FROM ledger_checkpoints WHERE chain_id = $1', [CHAIN]);
    expect(cps.rows.map((row) => Number(row.tree_size))).toEqual([25]);
  });

  it('a resend is idempotent, and an overlapping batch stores only what is new', async () => {
    const all = side.ledger.list(TENANT, { limit: 100 }).events;
    const again = await ship(batchOf(all));
    expect(again.status, again.text).toBe(200);
    expect(again.body.acked_seq).toBe(25);
    expect(await stored()).toBe(25);
    await append(10, 'second');
    const overlap = side.ledger.list(TENANT, { limit: 100 }).events.filter((e) => e.seq >= 20);
    const r = await ship(batchOf(overlap, []));
    expect(r.status, r.text).toBe(200);
    expect(r.body.acked_seq).toBe(35);
    expect(await stored()).toBe(35);
  });

  it('refuses a batch of entries that does not end in a checkpoint covering its last entry, storing nothing', async () => {
    await append(5, 'uncovered');
    const fresh = side.ledger.list(TENANT, { limit: 100 }).events.filter((e) => e.seq > 35);
    expect(expectEnvelope(await ship(rawBatch(fresh, [])), 422, 'invalid_request').message).toMatch(/does not end in a checkpoint covering entry 40/);
    // A checkpoint inside the batch is not enough: it must cover the last entry.
    const inside = side.ledger.signCheckpoint(TENANT, 38);
    expect(expectEnvelope(await ship(rawBatch(fresh, [inside])), 422, 'invalid_request').message).toMatch(/covering entry 40/);
    expect(await stored()).toBe(35);
    expect(await headSeq()).toBe(35);
  });

  it('refuses an entry whose payload changed under its hash, and stores nothing of the batch', async () => {
    const fresh = side.ledger.list(TENANT, { limit: 100 }).events.filter((e) => e.seq > 35);
    const tampered = clone(fresh);
    tampered[2]!.payload = { tag: 'third', i: 2, text: 'rewritten' };
    const r = await ship(batchOf(tampered, []));
    const e = expectEnvelope(r, 422, 'invalid_request');
    expect(e.message).toMatch(/entry 38: hash does not match/);
    expect(await stored()).toBe(35);
    expect(await headSeq()).toBe(35);
  });

  it('refuses an entry rehashed after a change (its successor no longer links), and stores nothing', async () => {
    const fresh = side.ledger.list(TENANT, { limit: 100 }).events.filter((e) => e.seq > 35);
    const tampered = clone(fresh);
    tampered[1]!.payload = { forged: true };
    tampered[1] = rehash(tampered[1]!);
    const r = await ship(batchOf(tampered, []));
    expect(expectEnvelope(r, 422, 'invalid_request').message).toMatch(/entry 38 does not link to entry 37/);
    // First new entry not linking to the stored head: refused as well.
    const unlinked = clone(fresh.slice(0, 1));
    unlinked[0]!.prev_hash = 'f'.repeat(64);
    const r2 = await ship(batchOf([rehash(unlinked[0]!)], []));
    expect(expectEnvelope(r2, 422, 'invalid_request').message).toMatch(/does not link to the stored entry 35/);
    expect(await stored()).toBe(35);
  });

  it('refuses hashes that are not the ledger\'s lowercase hex: 422 for the digits, 400 for the length', async () => {
    const fresh = side.ledger.list(TENANT, { limit: 100 }).events.filter((e) => e.seq > 35);
    const upperHash = clone(fresh);
    upperHash[2]!.hash = upperHash[2]!.hash.toUpperCase();
    expect(expectEnvelope(await ship(batchOf(upperHash, [])), 422, 'invalid_request').message).toMatch(/entry 38: hash does not match/);
    const upperPrev = clone(fresh);
    upperPrev[3]!.prev_hash = upperPrev[3]!.prev_hash.toUpperCase();
    expect(expectEnvelope(await ship(batchOf(upperPrev, [])), 422, 'invalid_request').message).toMatch(/entry 39 does not link to entry 38/);
    const upperFirst = clone(fresh.slice(0, 2));
    upperFirst[0]!.prev_hash = upperFirst[0]!.prev_hash.toUpperCase();
    upperFirst[0] = rehash(upperFirst[0]!);
    upperFirst[1]!.prev_hash = upperFirst[0].hash;
    upperFirst[1] = rehash(upperFirst[1]!);
    expect(expectEnvelope(await ship(batchOf(upperFirst, [])), 422, 'invalid_request').message).toMatch(/does not link to the stored entry 35/);
    const short = clone(fresh);
    short[4]!.hash = short[4]!.hash.slice(1);
    expect(expectEnvelope(await ship(batchOf(short, [])), 400, 'invalid_request').message).toMatch(/entries\[4\]: prev_hash and hash must be 64/);
    expect(await stored()).toBe(35);
    expect(await headSeq()).toBe(35);
  });

  it('refuses a fork: a different, self-consistent entry at a stored seq', async () => {
    const stored10 = side.ledger.get(TENANT, 10)!;
    const fork = rehash({ ...clone(stored10), payload: { forked: true } });
    const r = await ship(batchOf([fork], []));
    expect(expectEnvelope(r, 409, 'invalid_request').message).toMatch(/entry 10 differs from the stored entry/);
    expect(await stored()).toBe(35);
  });

  it('refuses a gap and entries of another tenant', async () => {
    const fresh = side.ledger.list(TENANT, { limit: 100 }).events.filter((e) => e.seq > 36);
    expectEnvelope(await ship(batchOf(fresh, [])), 422, 'invalid_request');
    const foreign = { ...batchOf(side.ledger.list(TENANT, { limit: 100 }).events.filter((e) => e.seq > 35), []) };
    foreign.entries = clone(foreign.entries).map((e) => rehash({ ...e, tenant_id: 'other' }));
    expectEnvelope(await ship(foreign), 422, 'invalid_request');
    expect(await stored()).toBe(35);
  });

  it('refuses a forged checkpoint signature and a checkpoint over the wrong root, storing none of the batch', async () => {
    const fresh = side.ledger.list(TENANT, { limit: 100 }).events.filter((e) => e.seq > 35);
    const real = await checkpointNow();
    expect(real.tree_size).toBe(40);
    const forged = { ...real, signature: Buffer.from(real.signature, 'base64').fill(7, 0, 8).toString('base64') };
    const r = await ship(batchOf(fresh, [forged]));
    expect(expectEnvelope(r, 422, 'invalid_request').message).toMatch(/checkpoint at tree size 40 has a bad signature/);
    // Signed with the sidecar's real key, but over a root the entries do not have.
    const signer = CheckpointSigner.load(side.dir);
    const wrongRoot = signer.sign({ tenant_id: TENANT, tree_size: 40, root_hash: 'a'.repeat(64), timestamp: new Date().toISOString() });
    expect(expectEnvelope(await ship(batchOf(fresh, [wrongRoot])), 422, 'invalid_request').message).toMatch(/root does not match/);
    expect(await stored()).toBe(35);
    const ok = await ship(batchOf(fresh, [real]));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.acked_seq).toBe(40);
  });

  it('accepts a checkpoint alone, after its entries, and verifies it against the stored ones', async () => {
    await append(7, 'fourth');
    const fresh = side.ledger.list(TENANT, { limit: 100 }).events.filter((e) => e.seq > 40);
    expect((await ship(batchOf(fresh, []))).body.acked_seq).toBe(47);
    // The ledger's own checkpoint at that size, signed after the batch's: stored beside it, the first one kept.
    const late = await checkpointNow();
    expect(late.tree_size).toBe(47);
    const signer = CheckpointSigner.load(side.dir);
    const bad = signer.sign({ tenant_id: TENANT, tree_size: 44, root_hash: 'b'.repeat(64), timestamp: new Date().toISOString() });
    expectEnvelope(await ship(batchOf([], [bad])), 422, 'invalid_request');
    const r = await ship(batchOf([], [late]));
    expect(r.status, r.text).toBe(200);
    const cps = await db.pool.query('SELECT tree_size FROM ledger_checkpoints WHERE chain_id = $1 ORDER BY tree_size', [CHAIN]);
    expect(cps.rows.map((row) => Number(row.tree_size))).toEqual([25, 35, 40, 47]);
  });

  it('refuses a different key for a chain that has one pinned', async () => {
    const stranger = new TempLedger();
    try {
      const batch = { ...batchOf([], [side.ledger.latestCheckpoint(TENANT)!]), public_key: stranger.ledger.publicKey };
      expect(expectEnvelope(await ship(batch), 422, 'invalid_request').message).toMatch(/pinned/);
    } finally {
      await stranger.dispose();
    }
  });

  it('needs a valid, unrevoked sidecar token covering the tenant', async () => {
    const batch = batchOf([], [side.ledger.latestCheckpoint(TENANT)!]);
    expectEnvelope(await ship(batch, ''), 401, 'authentication_error');
    expectEnvelope(await ship(batch, pats.viewer), 401, 'authentication_error');
    const narrow = await tokens.create('other-only', ['other']);
    expectEnvelope(await ship(batch, narrow.token), 403, 'permission_denied');
    const revoked = await tokens.create('gone', null);
    await tokens.revoke(revoked.record.id);
    expectEnvelope(await ship(batch, revoked.token), 401, 'authentication_error');
  });

  it('answers 400 to a body that is not a batch and 413 past the body and entry limits', async () => {
    expectEnvelope(await ship({ format: 'nope' }), 400, 'invalid_request');
    expectEnvelope(await ship({ ...batchOf([], []), chain_id: 'inst-a/other' }), 400, 'invalid_request');
    const many = Array.from({ length: 501 }, () => side.ledger.get(TENANT, 1)!);
    expectEnvelope(await ship(batchOf(many, [])), 413, 'payload_too_large');
    const big = call(cp.url, 'POST', '/v1/fleet/ledger', { token: sidecarToken, rawBody: Buffer.alloc(3 * 1024 * 1024, 32), headers: { 'content-type': 'application/json' } });
    expectEnvelope(await big, 413, 'payload_too_large');
    expect(await stored()).toBe(47);
  });
});

describe('archive reads across chains (PAT, tenant-isolated)', () => {
  it('lists entries with their chain_id, oldest or newest first, filtered and paginated', async () => {
    // A second chain of the same tenant (another sidecar instance).
    const other = new TempLedger();
    try {
      const entries = await other.ledger.append(TENANT, [{ event_type: 'prompt', payload: { from: 'b' }, metadata: { agent_id: 'agent-b' }, decision: null }]);
      const checkpoints = [other.ledger.signCheckpoint(TENANT, 1)];
      const r = await ship({ format: SHIPPING_FORMAT, chain_id: `inst-b/${TENANT}`, tenant_id: TENANT, public_key: other.ledger.publicKey, entries, checkpoints });
      expect(r.status, r.text).toBe(200);
    } finally {
      await other.dispose();
    }
    const all = await call(cp.url, 'GET', '/v1/events?limit=500', { token: pats.viewer });
    expect(all.status, all.text).toBe(200);
    expect(all.body.total).toBe(48);
    expect(new Set(all.body.events.map((e: { chain_id: string }) => e.chain_id))).toEqual(new Set([CHAIN, `inst-b/${TENANT}`]));
    const local = side.ledger.get(TENANT, 5)!;
    const archived = all.body.events.find((e: LedgerEntry & { chain_id: string }) => e.chain_id === CHAIN && e.seq === 5);
    expect(archived).toEqual({ ...local, chain_id: CHAIN });

    const byAgent = await call(cp.url, 'GET', '/v1/events?agent_id=agent-b', { token: pats.viewer });
    expect(byAgent.body.events.map((e: { chain_id: string }) => e.chain_id)).toEqual([`inst-b/${TENANT}`]);
    const prompts = await call(cp.url, 'GET', '/v1/events?event_type=prompt&limit=500', { token: pats.viewer });
    expect(prompts.body.total).toBe(prompts.body.events.length);
    expect(prompts.body.events.every((e: LedgerEntry) => e.event_type === 'prompt')).toBe(true);

    for (const order of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = `/v1/events?limit=7&order=${order}${cursor ? `&cursor=${cursor}` : ''}`;
        const page = await call(cp.url, 'GET', q, { token: pats.viewer });
        expect(page.status, page.text).toBe(200);
        for (const e of page.body.events) seen.push(`${e.chain_id}#${e.seq}`);
        cursor = page.body.cursor;
      } while (cursor);
      expect(seen).toHaveLength(48);
      expect(new Set(seen).size).toBe(48);
      const expected = all.body.events.map((e: { chain_id: string; seq: number }) => `${e.chain_id}#${e.seq}`);
      expect(seen).toEqual(order === 'asc' ? expected : [...expected].reverse());
    }
    const foreign = await call(cp.url, 'GET', '/v1/events', { token: pats.other });
    expect(foreign.body.total).toBe(0);
    expectEnvelope(await call(cp.url, 'GET', '/v1/events?cursor=bm9wZQ', { token: pats.viewer }), 400, 'invalid_request');
  });

  it('verifies every chain of the tenant, and names a chain whose stored entry was changed', async () => {
    const r = await call(cp.url, 'GET', '/v1/events/verify', { token: pats.viewer });
    expect(r.status, r.text).toBe(200);
    expect(r.body.ok).toBe(true);
    expect(r.body.chains.map((c: { chain_id: string; ok: boolean; checked: number }) => [c.chain_id, c.ok, c.checked])).toEqual([
      [CHAIN, true, 47],
      [`inst-b/${TENANT}`, true, 1],
    ]);
    expect(r.body.chains[0].checkpointsChecked).toBe(4);
    // Tamper behind the archive's back, then put it back.
    const before = (await db.pool.query('SELECT entry FROM ledger_entries WHERE chain_id = $1 AND seq = 12', [CHAIN])).rows[0].entry as string;
    await db.pool.query('UPDATE ledger_entries SET entry = $3 WHERE chain_id = $1 AND seq = $2', [CHAIN, 12, before.replace('"tag":"first"', '"tag":"FIRST"')]);
    try {
      const broken = await call(cp.url, 'GET', '/v1/events/verify', { token: pats.viewer });
      expect(broken.body.ok).toBe(false);
      expect(broken.body.chains[0]).toMatchObject({ chain_id: CHAIN, ok: false, firstBrokenSeq: 12, checked: 11 });
      expect(broken.body.chains[1].ok).toBe(true);
    } finally {
      await db.pool.query('UPDATE ledger_entries SET entry = $3 WHERE chain_id = $1 AND seq = $2', [CHAIN, 12, before]);
    }
    const other = await call(cp.url, 'GET', '/v1/events/verify', { token: pats.other });
    expect(other.body).toMatchObject({ tenant_id: 'other', ok: true, chains: [] });
  });

  it('serves inclusion and consistency proofs of one chain that match the sidecar and its signed checkpoints', async () => {
    const cps = await call(cp.url, 'GET', `/v1/events/checkpoints?chain_id=${encodeURIComponent(CHAIN)}`, { token: pats.viewer });
    expect(cps.status, cps.text).toBe(200);
    expect(cps.body.public_key).toEqual(side.ledger.publicKey);
    const at40 = cps.body.data.find((c: { tree_size: number }) => c.tree_size === 40);
    const inc = await call(cp.url, 'GET', `/v1/events/proofs/inclusion?chain_id=${encodeURIComponent(CHAIN)}&seq=13&tree_size=40`, { token: pats.viewer });
    expect(inc.status, inc.text).toBe(200);
    const { chain_id: chainId, ...proof } = inc.body;
    expect(chainId).toBe(CHAIN);
    expect(proof).toEqual(side.ledger.inclusionProof(TENANT, 13, 40));
    expect(verifyInclusion(proof)).toBe(true);
    expect(proof.root_hash).toBe(at40.root_hash);
    const cons = await call(cp.url, 'GET', `/v1/events/proofs/consistency?chain_id=${encodeURIComponent(CHAIN)}&from=25&to=47`, { token: pats.viewer });
    expect(cons.status, cons.text).toBe(200);
    const { chain_id: _c, ...cproof } = cons.body;
    expect(cproof).toEqual(side.ledger.consistencyProof(TENANT, 25, 47));
    expect(verifyConsistency(cproof)).toBe(true);
    expectEnvelope(await call(cp.url, 'GET', `/v1/events/proofs/inclusion?chain_id=${encodeURIComponent(CHAIN)}&seq=13`, { token: pats.other }), 404, 'not_found');
    expectEnvelope(await call(cp.url, 'GET', `/v1/events/proofs/inclusion?chain_id=${encodeURIComponent(CHAIN)}&seq=48`, { token: pats.viewer }), 404, 'not_found');
    expectEnvelope(await call(cp.url, 'GET', '/v1/events/proofs/inclusion?seq=1', { token: pats.viewer }), 400, 'invalid_request');
  });
});
