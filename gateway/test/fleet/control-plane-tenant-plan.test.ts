import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { poll } from '../../../shared/test/helpers/poll.js';
import { loadGatewayConfig } from '../../src/config.js';
import { startControlPlane, type RunningControlPlane } from '../../src/control-plane.js';
import { openPostgresRepositories } from '../../src/fleet/postgres/open-postgres-repositories.js';
import { call, expectEnvelope } from '../helpers/start-test-gateway.js';
import { startSidecar, type TestSidecar } from '../helpers/fleet-control-plane.js';

/**
 * A tenant's plan changed at the control plane (issue 36, item 1), with a real PostgreSQL and a real sidecar: the
 * route is served there, the change reaches the sidecar in its bundle, and the sidecar chains it in its own ledger
 * (the control plane keeps no chain of its own), which it ships back like any entry.
 */
let pg: LocalPostgres;
let databaseUrl = '';
const dirs: string[] = [];
let cp: RunningControlPlane;
let sidecar: TestSidecar;
let admin = '';
let adminId = '';

const tmp = (name: string): string => {
  const d = mkdtempSync(join(tmpdir(), `aduana-cpplan-${name}-`));
  dirs.push(d);
  return d;
};

type Entry = { event_type: string; payload: Record<string, unknown>; metadata: Record<string, unknown> };
const planEntries = async (base: string): Promise<Entry[]> => (await call(base, 'GET', '/v1/events?event_type=tenant.plan_changed', { token: admin })).body?.events ?? [];

beforeAll(async () => {
  pg = await startLocalPostgres();
  databaseUrl = await pg.createDatabase('cp_tenant_plan');
  cp = await startControlPlane({
    config: loadGatewayConfig({}, { databaseUrl, dataDir: tmp('control'), port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent' }),
    logger: createLogger('control', { level: 'silent' }),
  });
  admin = cp.bootstrapToken as string;
  const repos = await openPostgresRepositories(databaseUrl, { sessionTtlMs: 3_600_000 });
  adminId = repos.tokens.findByToken(admin)!.id;
  const sidecarToken = (await repos.sidecarTokens.create('cpplan', null)).token;
  await repos.close();
  sidecar = await startSidecar(cp.url, sidecarToken, tmp('sidecar'), { shipLingerMs: 0 });
  await poll(() => call(sidecar.url, 'GET', '/v1/policies', { token: admin }), { what: "the sidecar's first bundle", until: (r) => r.status === 200 });
}, 120_000);

afterAll(async () => {
  await sidecar?.close();
  await cp?.close();
  await pg?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 60_000);

describe('a plan changed at the control plane', () => {
  it('is set in PostgreSQL, refused at the sidecar, and chained by the sidecar when its bundle brings it (then shipped back)', async () => {
    const r = await call(cp.url, 'PUT', '/admin/tenants/default/plan', { token: admin, body: { plan: 'professional' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: 'default', plan: 'professional', plan_changed: { from: 'enterprise', to: 'professional', by: adminId } });

    const atSidecar = await call(sidecar.url, 'PUT', '/admin/tenants/default/plan', { token: admin, body: { plan: 'community' } });
    expect(expectEnvelope(atSidecar, 409, 'invalid_request').message).toContain(cp.url);

    const chained = await poll(() => planEntries(sidecar.url), { what: "the sidecar's tenant.plan_changed entry", until: (e) => e.length > 0 });
    expect(chained).toHaveLength(1);
    expect(chained[0]!.payload).toEqual({ by: adminId, from: 'enterprise', to: 'professional' });
    expect(chained[0]!.metadata['bundle_revision']).toEqual(expect.any(Number));
    expect(sidecar.gw.deps.tenants.get('default')?.plan).toBe('professional');

    const shipped = await poll(() => planEntries(cp.url), { what: 'the entry shipped to the control plane', until: (e) => e.length > 0 });
    expect(shipped[0]!.payload).toEqual({ by: adminId, from: 'enterprise', to: 'professional' });
  });

  it('403 without admin:manage or for another tenant, 400 for a plan that does not exist; nothing changes', async () => {
    const op = await call(cp.authUrl, 'POST', '/token', { token: admin, body: { name: 'op', role: 'operator' } });
    expect(op.status, op.text).toBe(200);
    expectEnvelope(await call(cp.url, 'PUT', '/admin/tenants/default/plan', { token: op.body.token, body: { plan: 'enterprise' } }), 403, 'permission_denied');
    expectEnvelope(await call(cp.url, 'PUT', '/admin/tenants/other/plan', { token: admin, body: { plan: 'enterprise' } }), 403, 'permission_denied');
    expectEnvelope(await call(cp.url, 'PUT', '/admin/tenants/default/plan', { token: admin, body: { plan: 'platinum' } }), 400, 'invalid_request');
    const repos = await openPostgresRepositories(databaseUrl, { sessionTtlMs: 3_600_000 });
    try {
      expect(repos.tenants.get('default')?.plan).toBe('professional');
    } finally {
      await repos.close();
    }
  });
});
