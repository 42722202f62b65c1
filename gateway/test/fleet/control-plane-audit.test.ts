import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/launch-chromium.js';
import { canonicalJson, createLogger } from '@aduana/shared';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { loadGatewayConfig } from '../../src/config.js';
import { startControlPlane, type RunningControlPlane } from '../../src/control-plane.js';
import { openPostgresRepositories, type PostgresRepositories } from '../../src/fleet/postgres/open-postgres-repositories.js';
import { PgControlChain } from '../../src/fleet/postgres/pg-control-chain.js';
import { PgLedgerArchive } from '../../src/fleet/postgres/pg-ledger-archive.js';
import { adminActionEntry, viewDigest } from '../../src/governance/admin-actions.js';
import { CheckpointSigner, verifyCheckpointSignature, type LedgerPublicKey } from '../../src/ledger/merkle/checkpoint.js';
import { verifyInclusion, type LedgerEntry } from '../../src/ledger/index.js';
import { SHIPPING_FORMAT } from '../../src/fleet/shipping/shipping-format.js';
import { call, expectEnvelope, type CallResult } from '../helpers/start-test-gateway.js';
import { startSidecar, type TestSidecar } from '../helpers/fleet-control-plane.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { shownCheckpoint } from '../helpers/independent-proof.js';

/**
 * Who changed what at the fleet's control plane (issue 34): admin actions, plan changes and resolutions made there are
 * chained in the control plane's own chain of the tenant (`control-plane/<tenant>`), in PostgreSQL, shown on the
 * console's audit page and covered by the archive's verify. A real PostgreSQL, two control-plane replicas, a real
 * sidecar (it makes the held decision resolved here) and a real Chromium.
 */
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/console/', import.meta.url));
const PASSWORD = 'control plane audit 123';
const CHAIN = 'control-plane/default';
let pgServer: LocalPostgres;
let databaseUrl = '';
const dirs: string[] = [];
let cp: RunningControlPlane;
let cp2: RunningControlPlane;
let repos: PostgresRepositories;
let sidecar: TestSidecar;
let sidecarToken = '';
let browser: Browser;
let admin = '';
let adminTokenId = '';
let policyId = '';
let heldId = '';
const userIds: Record<string, string> = {};
const pageProblems: string[] = [];

const tmp = (name: string): string => {
  const d = mkdtempSync(join(tmpdir(), `aduana-cpaudit-${name}-`));
  dirs.push(d);
  return d;
};

const replica = (name: string): Promise<RunningControlPlane> =>
  startControlPlane({
    config: loadGatewayConfig({}, { databaseUrl, dataDir: tmp(name), port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', passwordScryptLogN: 12 }),
    logger: createLogger(name, { level: 'silent' }),
  });

type Chained = LedgerEntry & { chain_id: string };

/** The control plane's own chain of the default tenant, by seq, as the archive's events route reads it. */
async function ownChain(): Promise<Chained[]> {
  const r = await call(cp.url, 'GET', `/v1/events?chain_id=${encodeURIComponent(CHAIN)}&limit=500`, { token: admin });
  expect(r.status, r.text).toBe(200);
  return (r.body.events as Chained[]).sort((a, b) => a.seq - b.seq);
}

async function verify(): Promise<{ ok: boolean; chains: { chain_id: string; ok: boolean; checked: number; firstBrokenSeq: number | null; reason: string | null }[] }> {
  const v = await call(cp.url, 'GET', '/v1/events/verify', { token: admin });
  expect(v.status, v.text).toBe(200);
  return v.body;
}

/** A policy's view as `base` reads it: the replica that changed it (the other one's mirror may lag behind). */
const policyGet = async (id: string, base = cp.url): Promise<unknown> => (await call(base, 'GET', `/v1/policies/${id}`, { token: admin })).body;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  pgServer = await startLocalPostgres();
  databaseUrl = await pgServer.createDatabase('cp_audit');
  cp = await replica('control-a');
  cp2 = await replica('control-b');
  admin = cp.bootstrapToken as string;
  repos = await openPostgresRepositories(databaseUrl, { sessionTtlMs: 3_600_000 });
  adminTokenId = repos.tokens.findByToken(admin)!.id;
  sidecarToken = (await repos.sidecarTokens.create('cpaudit', null)).token;
  // Enterprise: the plan's rate limit never interferes. Set in the database: not made through the API, not chained.
  expect(await repos.tenants.setPlan('default', 'enterprise', 'test')).toBeDefined();
  for (const [email, role] of [['admin@cpaudit.example', 'admin'], ['viewer@cpaudit.example', 'viewer'], ['leaver@cpaudit.example', 'viewer']] as const) {
    const r = await call(cp.url, 'POST', '/admin/users', { token: admin, body: { email, name: email, role, password: PASSWORD } });
    expect(r.status, r.text).toBe(201);
    userIds[email.split('@')[0]!] = r.body.id;
  }
  const hold = await call(cp.url, 'POST', '/v1/policies', { token: admin, body: { name: 'hold payments', type: 'content_filter', risk: 40, rules: { patterns: ['wire money'], action: 'REQUIRE_APPROVAL' } } });
  expect(hold.status, hold.text).toBe(200);
  policyId = hold.body.id;
  sidecar = await startSidecar(cp.url, sidecarToken, tmp('sidecar'), { shipLingerMs: 0 });
  await vi.waitFor(
    async () => {
      const d = await call(sidecar.url, 'POST', '/v1/decide', { token: admin, body: { agent_id: 'payer', action: { type: 'chat', payload: { text: 'wire money to X' } } } });
      expect(d.body?.envelope?.execution_status).toBe('REQUIRE_APPROVAL');
      heldId = d.body.envelope.decision_id;
    },
    { timeout: 15_000, interval: 50 },
  );
  await vi.waitFor(async () => expect((await call(cp.url, 'GET', `/admin/decisions/${heldId}`, { token: admin })).status).toBe(200), { timeout: 10_000, interval: 25 });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sidecar?.close();
  await repos?.close();
  await cp2?.close();
  await cp?.close();
  await pgServer?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 60_000);

const signIn = (email: string): Promise<Page> => signInToConsole(browser, cp.authUrl, email, PASSWORD, pageProblems);
const actions = (page: Page) => page.$$eval('#audit tbody tr[data-action]', (rows) => rows.map((r) => r.getAttribute('data-action')));
const seqs = (page: Page) => page.$$eval('#audit tbody tr[data-seq]', (rows) => rows.map((r) => Number(r.getAttribute('data-seq'))));

/** The digests an audit row shows for its change (before → after), read from their titles; null for "none". */
const rowDigests = (page: Page, seq: number) =>
  page.$eval(`#audit tbody tr[data-seq="${seq}"] td:nth-child(5)`, (td) =>
    [...td.children].map((c) => (c.getAttribute('title') ?? '').replace(/^SHA-256 /, '') || null),
  );

/** What the test did at the control plane, in order: the audit page must list exactly these, newest first. */
const done: { action: string; target: string; before: string | null; after: string | null }[] = [];

describe("the control plane's own chain", () => {
  it('chains every change made at the control plane (API, both replicas), with actor and before/after digests', async () => {
    // What beforeAll made: three users and a policy.
    const atStart = await ownChain();
    expect(atStart.map((e) => e.event_type)).toEqual(['user.created', 'user.created', 'user.created', 'policy.created']);
    expect(atStart.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    for (const e of atStart) done.push({ action: e.event_type, target: String(e.payload['target']), before: null, after: e.payload['after'] as string });
    expect(atStart[3]!.payload).toEqual({ action: 'policy.created', actor: { by: adminTokenId, user: null }, target: policyId, before: null, after: viewDigest(await policyGet(policyId)) });

    // Policies: updated (on the second replica), a temporary one created and deleted.
    const v0 = viewDigest(await policyGet(policyId, cp2.url));
    expect((await call(cp2.url, 'PUT', `/v1/policies/${policyId}`, { token: admin, body: { risk: 45 } })).status).toBe(200);
    done.push({ action: 'policy.updated', target: policyId, before: v0, after: viewDigest(await policyGet(policyId, cp2.url)) });
    const temp = await call(cp.url, 'POST', '/v1/policies', { token: admin, body: { name: 'temporary', type: 'content_filter', risk: 10, rules: { patterns: ['nothing'], action: 'DENY' } } });
    expect(temp.status, temp.text).toBe(200);
    const tempView = viewDigest(await policyGet(temp.body.id));
    done.push({ action: 'policy.created', target: temp.body.id, before: null, after: tempView });
    expect((await call(cp.url, 'DELETE', `/v1/policies/${temp.body.id}`, { token: admin })).status).toBe(204);
    done.push({ action: 'policy.deleted', target: temp.body.id, before: tempView, after: null });
    // A user disabled, a token created (the authentication service).
    expect((await call(cp.url, 'POST', `/admin/users/${userIds['leaver']}/disable`, { token: admin })).status).toBe(200);
    done.push({ action: 'user.disabled', target: userIds['leaver']!, before: 'digest', after: 'digest' });
    const tok = await call(cp.authUrl, 'POST', '/token', { token: admin, body: { name: 'ci', role: 'viewer' } });
    expect(tok.status, tok.text).toBe(200);
    done.push({ action: 'token.created', target: tok.body.id, before: null, after: 'digest' });
    // An agent suspended.
    expect((await call(cp.url, 'POST', '/v1/agents/register', { token: admin, body: { agent_id: 'bot-a', name: 'Bot A' } })).status).toBe(201);
    expect((await call(cp.url, 'POST', '/v1/agents/bot-a/suspend', { token: admin })).status).toBe(200);
    done.push({ action: 'agent.suspended', target: 'bot-a', before: viewDigest({ agent_id: 'bot-a', suspended: false }), after: viewDigest({ agent_id: 'bot-a', suspended: true }) });
    // The plan down and back up.
    for (const plan of ['professional', 'enterprise']) {
      const r = await call(cp.url, 'PUT', '/admin/tenants/default/plan', { token: admin, body: { plan } });
      expect(r.status, r.text).toBe(200);
      done.push({ action: 'tenant.plan_changed', target: plan, before: null, after: null });
    }
    // The held decision the sidecar made, resolved here.
    const resolved = await call(cp.url, 'POST', `/admin/decisions/${heldId}/resolve`, { token: admin, body: { resolution: 'REJECTED', note: 'no' } });
    expect(resolved.status, resolved.text).toBe(200);
    done.push({ action: 'decision.resolved', target: heldId, before: null, after: null });
    // Refused changes chain nothing.
    expectEnvelope(await call(cp.url, 'PUT', '/admin/tenants/default/plan', { token: admin, body: { plan: 'platinum' } }), 400, 'invalid_request');
    expectEnvelope(await call(cp.url, 'POST', `/admin/decisions/${heldId}/resolve`, { token: admin, body: { resolution: 'APPROVED' } }), 409, 'invalid_request');

    const chain = await ownChain();
    expect(chain.map((e) => e.event_type)).toEqual(done.map((d) => d.action));
    expect(chain.map((e) => e.seq)).toEqual(done.map((_, i) => i + 1));
    for (const [i, e] of chain.entries()) {
      const want = done[i]!;
      expect(e.chain_id).toBe(CHAIN);
      expect(e.decision).toBeNull();
      expect(e.metadata['trace_id']).toEqual(expect.any(String));
      if (e.event_type === 'tenant.plan_changed') {
        expect(e.payload).toEqual({ by: adminTokenId, from: want.target === 'professional' ? 'enterprise' : 'professional', to: want.target });
        continue;
      }
      if (e.event_type === 'decision.resolved') {
        expect(e.payload).toEqual({ decision_id: heldId, resolution: { status: 'REJECTED', note: 'no', resolved_by: adminTokenId, resolved_at: expect.any(String) } });
        expect(e.metadata['agent_id']).toBe('payer');
        continue;
      }
      expect(e.payload['actor']).toEqual({ by: adminTokenId, user: null });
      expect(e.payload['target']).toBe(want.target);
      for (const side of ['before', 'after'] as const) {
        if (want[side] === null) expect(e.payload[side]).toBeNull();
        else if (want[side] === 'digest') expect(e.payload[side]).toMatch(/^[0-9a-f]{64}$/);
        else expect(e.payload[side]).toBe(want[side]);
      }
      // The local ledger's hash definition: SHA-256(prev_hash ‖ RFC 8785 JSON of the entry without its hash).
      const { hash, chain_id: _c, ...rest } = e;
      expect(createHash('sha256').update(rest.prev_hash + canonicalJson(rest)).digest('hex')).toBe(hash);
      expect(rest.prev_hash).toBe(i === 0 ? '0'.repeat(64) : chain[i - 1]!.hash);
    }

    const report = await verify();
    expect(report.ok, JSON.stringify(report)).toBe(true);
    const own = report.chains.find((c) => c.chain_id === CHAIN)!;
    expect(own).toMatchObject({ ok: true, checked: done.length, firstBrokenSeq: null });
    // The sidecar's shipped chain is there too, verified beside it.
    expect(report.chains.filter((c) => c.chain_id !== CHAIN).length).toBeGreaterThan(0);
  });

  for (const who of ['admin', 'viewer'] as const) {
    it(`${who}: the console's audit page lists them newest first, with actor, target and digests; filters work`, async () => {
      const page = await signIn(`${who}@cpaudit.example`);
      await Promise.all([page.waitForURL(`${cp.authUrl}/console/audit`), page.click('header nav a[href="/console/audit"]')]);
      expect(await page.textContent('h1')).toBe('Audit trail');
      expect(await page.$('#no-audit')).toBeNull();
      const chain = await ownChain();
      const newest = [...chain].slice(-50).reverse();
      expect(await actions(page)).toEqual(newest.map((e) => e.event_type));
      expect(await seqs(page)).toEqual(newest.map((e) => e.seq));
      const updated = chain.find((e) => e.event_type === 'policy.updated' && e.payload['actor'] && (e.payload['actor'] as { user: unknown }).user === null)!;
      expect(await rowDigests(page, updated.seq)).toEqual([updated.payload['before'], updated.payload['after']]);
      const deleted = chain.find((e) => e.event_type === 'policy.deleted')!;
      expect(await rowDigests(page, deleted.seq)).toEqual([deleted.payload['before'], null]);
      expect(await page.textContent(`#audit tbody tr[data-seq="${deleted.seq}"] td:nth-child(3)`)).toContain(adminTokenId);
      expect(await page.getAttribute('tr[data-action="decision.resolved"] a', 'href')).toBe(`/console/decisions/${heldId}`);
      expect(await page.textContent('tr[data-action="tenant.plan_changed"] td:nth-child(5)')).toBe('professional → enterprise');
      await page.screenshot({ path: `${ARTIFACTS}control-plane-audit-${who}.png` });

      const filtered = async (q: string): Promise<(string | null)[]> => {
        await page.goto(`${cp.authUrl}/console/audit?${q}`);
        return actions(page);
      };
      expect(await filtered('action=user.disabled')).toEqual(['user.disabled']);
      expect(await filtered('action=agent.suspended')).toEqual(['agent.suspended']);
      expect(await filtered(`actor=${adminTokenId}&action=token.created`)).toEqual(['token.created']);
      expect(await filtered('actor=nobody-at-all')).toEqual([]);
      expect(await page.textContent('#audit tbody')).toContain('No admin actions match.');
      expect(await filtered(`from=${new Date(Date.now() + 120_000).toISOString().slice(0, 16)}&tzo=0`)).toEqual([]);
      await page.context().close();
    });
  }

  it("pages of 50 with a cursor; an admin's console change shows under the admin's user", async () => {
    for (let i = 0; i < 50; i++) expect((await call(i % 2 ? cp2.url : cp.url, 'PUT', `/v1/policies/${policyId}`, { token: admin, body: { risk: 50 + i } })).status).toBe(200);
    const page = await signIn('admin@cpaudit.example');
    await page.goto(`${cp.authUrl}/console/policies`);
    await Promise.all([page.waitForURL(`${cp.authUrl}/console/policies`), page.click(`form[action="/console/policies/${policyId}/toggle"] button`)]);
    await page.goto(`${cp.authUrl}/console/audit`);
    const chain = await ownChain();
    const first = await seqs(page);
    expect(first).toHaveLength(50);
    expect(first[0]).toBe(chain.length);
    expect(await page.textContent('#audit tbody tr:first-child td:nth-child(3)')).toContain(userIds['admin']);
    await Promise.all([page.waitForURL(/before=/), page.click('#older')]);
    // The rest, older, none repeated: the chain holds fewer than 100 entries.
    expect(chain.length).toBeLessThan(100);
    expect(await seqs(page)).toEqual(Array.from({ length: first[49]! - 1 }, (_, i) => first[49]! - 1 - i));
    expect(await page.$('#older')).toBeNull();
    await page.goto(`${cp.authUrl}/console/audit?actor=${userIds['admin']}`);
    expect(await actions(page)).toEqual(['policy.updated']);
    await page.context().close();
    expect((await verify()).ok).toBe(true);
    expect(pageProblems).toEqual([]);
  });

  it("the decision page shows the shipped entry, its chain's latest checkpoint and an inclusion proof that verify", async () => {
    const listed = await call(cp.url, 'GET', '/v1/events?event_type=decision&limit=500', { token: admin });
    const shipped = (listed.body.events as Chained[]).find((e) => e.decision?.['decision_id'] === heldId)!;
    expect(shipped).toBeDefined();
    const key = (await call(cp.url, 'GET', `/v1/events/checkpoints?chain_id=${encodeURIComponent(shipped.chain_id)}`, { token: admin })).body.public_key as LedgerPublicKey;
    const page = await signIn('viewer@cpaudit.example');
    await page.goto(`${cp.authUrl}/console/decisions/${heldId}`);
    const text = async (selector: string): Promise<string> => ((await page.textContent(selector)) ?? '').trim();
    expect(Number(await text('#entry-seq'))).toBe(shipped.seq);
    expect(await text('#entry-hash')).toBe(shipped.hash);
    expect(await text('#entry-prev-hash')).toBe(shipped.prev_hash);
    const cpShown = await shownCheckpoint(page, 'default');
    expect(await text('#public-key')).toBe(key.raw);
    expect(verifyCheckpointSignature(cpShown, key)).toBe(true);
    const proof = {
      tenant_id: 'default',
      seq: shipped.seq,
      leaf_index: Number(await text('#proof-leaf-index')),
      tree_size: Number(await text('#proof-tree-size')),
      entry_hash: await text('#proof-entry-hash'),
      root_hash: await text('#proof-root'),
      audit_path: (await page.locator('#proof-path li').allTextContents()).map((h) => h.trim()),
    };
    expect(proof).toMatchObject({ entry_hash: shipped.hash, tree_size: cpShown.tree_size, root_hash: cpShown.root_hash });
    expect(verifyInclusion(proof)).toBe(true);
    expect(verifyInclusion({ ...proof, entry_hash: '0'.repeat(64) })).toBe(false);
    await page.context().close();
  });

  it('two replicas appending at once leave one valid chain (also racing to open a new tenant\'s chain)', async () => {
    const before = (await ownChain()).length;
    const creates = Array.from({ length: 16 }, (_, i) =>
      call(i % 2 ? cp2.url : cp.url, 'POST', '/v1/policies', { token: admin, body: { name: `concurrent ${i}`, type: 'content_filter', risk: 5, rules: { patterns: [`c${i}`], action: 'DENY' } } }),
    );
    for (const r of await Promise.all(creates)) expect(r.status, r.text).toBe(200);
    const chain = await ownChain();
    expect(chain).toHaveLength(before + 16);
    expect(chain.map((e) => e.seq)).toEqual(chain.map((_, i) => i + 1));
    expect(chain.filter((e) => String(e.payload['target']).length > 0 && e.event_type === 'policy.created')).toHaveLength(2 + 16);

    // Two pools (as two replicas hold) appending to a tenant that has no chain yet.
    const pools = [new pg.Pool({ connectionString: databaseUrl, max: 4 }), new pg.Pool({ connectionString: databaseUrl, max: 4 })];
    try {
      const chains = pools.map((p) => new PgControlChain(p));
      const input = (i: number) => adminActionEntry({ actor: { by: 'cli', user: null }, action: 'agent.suspended', target: `a${i}`, before: null, after: { i } });
      const appended = await Promise.all(Array.from({ length: 40 }, (_, i) => chains[i % 2]!.append('race', input(i))));
      expect(appended.map((e) => e.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      const reports = await new PgLedgerArchive(pools[0]!).verifyTenant('race');
      expect(reports).toEqual([expect.objectContaining({ chain_id: 'control-plane/race', instance_id: 'control-plane', ok: true, checked: 40 })]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('a sidecar cannot ship into the reserved chain id: 403, nothing stored', async () => {
    const signer = CheckpointSigner.load(tmp('forger-key'));
    const entry = (tenantId: string): LedgerEntry => {
      const e = { created_at: new Date().toISOString(), decision: null, event_type: 'policy.created', metadata: {}, payload: { forged: true }, prev_hash: '0'.repeat(64), seq: 1, tenant_id: tenantId };
      return { ...e, hash: createHash('sha256').update(e.prev_hash + canonicalJson(e)).digest('hex') };
    };
    const batch = (chainId: string, tenantId: string) => {
      const e = entry(tenantId);
      const root = createHash('sha256').update(Buffer.concat([Buffer.from([0]), Buffer.from(e.hash, 'hex')])).digest('hex');
      return { format: SHIPPING_FORMAT, chain_id: chainId, tenant_id: tenantId, public_key: signer.publicKey, entries: [e], checkpoints: [signer.sign({ tenant_id: tenantId, tree_size: 1, root_hash: root, timestamp: new Date().toISOString() })] };
    };
    const ship = (body: unknown): Promise<CallResult> => call(cp.url, 'POST', '/v1/fleet/ledger', { token: sidecarToken, body });
    const rows = async (chainId: string) => ({
      chains: (await repos.pool.query('SELECT head_seq, head_hash FROM ledger_chains WHERE chain_id = $1', [chainId])).rows,
      entries: Number((await repos.pool.query('SELECT count(*) AS n FROM ledger_entries WHERE chain_id = $1', [chainId])).rows[0].n),
    });
    // The same batch under an instance id of its own is a valid new chain (of a tenant of its own, left alone here).
    expect((await ship(batch('sci_forger/forged', 'forged'))).status).toBe(200);
    // Into an existing control-plane chain, or opening one: refused, nothing written.
    const held = await rows(CHAIN);
    expect(expectEnvelope(await ship(batch(CHAIN, 'default')), 403, 'permission_denied').message).toMatch(/control plane's own/);
    expect(await rows(CHAIN)).toEqual(held);
    expect(expectEnvelope(await ship(batch('control-plane/fresh', 'fresh')), 403, 'permission_denied').message).toMatch(/control plane's own/);
    expect(await rows('control-plane/fresh')).toEqual({ chains: [], entries: 0 });
    expect((await verify()).ok).toBe(true);
  });

  it('a row of the chain changed in SQL: verify reports the break (the chain, the first broken seq); restored, it verifies', async () => {
    const chain = await ownChain();
    const target = chain.find((e) => e.event_type === 'tenant.plan_changed')!;
    const { rows } = await repos.pool.query<{ entry: string }>('SELECT entry FROM ledger_entries WHERE chain_id = $1 AND seq = $2', [CHAIN, target.seq]);
    const original = rows[0]!.entry;
    const forged = original.replace('"to":"professional"', '"to":"community"');
    expect(forged).not.toBe(original);
    await repos.pool.query('UPDATE ledger_entries SET entry = $3 WHERE chain_id = $1 AND seq = $2', [CHAIN, target.seq, forged]);
    try {
      const report = await verify();
      expect(report.ok).toBe(false);
      const own = report.chains.find((c) => c.chain_id === CHAIN)!;
      expect(own).toMatchObject({ ok: false, firstBrokenSeq: target.seq, checked: target.seq - 1 });
      expect(own.reason).toMatch(/hash does not match/);
      expect(report.chains.filter((c) => c.chain_id !== CHAIN).every((c) => c.ok)).toBe(true);
    } finally {
      await repos.pool.query('UPDATE ledger_entries SET entry = $3 WHERE chain_id = $1 AND seq = $2', [CHAIN, target.seq, original]);
    }
    expect((await verify()).ok).toBe(true);
  });
});
