import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { loadGatewayConfig } from '../src/config.js';
import { startControlPlane, type RunningControlPlane } from '../src/control-plane.js';
import type { AuthKind, RouteInfo } from '../src/http/server.js';
import { startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { rawRequest, type RawAnswer } from './helpers/raw-http.js';

/**
 * Every route of every server says how it authenticates (docs/architecture.md, "The gateway's rooms"), and the kind
 * it declares is the kind the server enforces: the embedded gateway's API port and authentication service, and the
 * control plane's two ports (on a real PostgreSQL).
 */

let t: TestGateway;
let pg: LocalPostgres;
let cp: RunningControlPlane;
let cpDir = '';

beforeAll(async () => {
  t = await startTestGateway();
  pg = await startLocalPostgres();
  cpDir = mkdtempSync(join(tmpdir(), 'aduana-route-auth-'));
  cp = await startControlPlane({
    config: loadGatewayConfig({}, { databaseUrl: await pg.createDatabase('route_auth'), dataDir: cpDir, port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent' }),
    logger: createLogger('route-auth', { level: 'silent' }),
  });
}, 120_000);

afterAll(async () => {
  await cp?.close();
  await pg?.stop();
  await t?.close();
  if (cpDir) rmSync(cpDir, { recursive: true, force: true });
}, 60_000);

/** Routes anyone may call. */
const PUBLIC = new Set(['get /health', 'get /healthz', 'post /login', 'get /verify', 'get /auth/idp', 'get /auth/idp/callback', 'get /console/login', 'post /console/login', 'get /console/assets/:name', 'post /v1/proxy/*']);
/** The control plane's routes for sidecars. */
const SIDECAR = new Set(['get /v1/fleet/bundle', 'post /v1/fleet/ledger', 'post /v1/fleet/agents', 'post /v1/fleet/telemetry']);
/** The console's forms and pages only an admin may use. */
const ADMIN_FORMS = new Set(['post /console/decisions/:id/resolve', 'post /console/policies/:id/toggle', 'get /console/policies/editor', 'post /console/policies/editor', 'post /console/settings/request-log', 'post /console/routes', 'post /console/routes/delete', 'get /console/tokens', 'post /console/tokens', 'post /console/tokens/:id/revoke', 'get /console/users', 'post /console/users', 'post /console/users/:id/disable']);
const PROXY = new Set(['post /v1/proxy/chat/completions', 'post /v1/proxy/completions', 'post /v1/proxy/embeddings', 'get /v1/proxy/models']);

const name = (r: RouteInfo): string => `${r.method} ${r.pattern}`;

function expectedKind(r: RouteInfo): AuthKind {
  const n = name(r);
  if (PUBLIC.has(n)) return 'public';
  if (SIDECAR.has(n)) return 'sidecar';
  if (n === 'get /v1/telemetry/metrics') return 'scrape';
  if (r.pattern === '/console' || r.pattern.startsWith('/console/')) return 'session';
  return 'pat';
}

/** Each server's base URL and routes. */
function servers(): [string, string, readonly RouteInfo[]][] {
  return [
    ['gateway API', t.url, t.gw.routes.api],
    ['gateway auth', t.authUrl, t.gw.routes.auth],
    ['control plane API', cp.url, cp.routes.api],
    ['control plane auth', cp.authUrl, cp.routes.auth],
  ];
}

/** A request for the route with no credential; a method that takes a body declares 1 GiB of it and sends none. */
function send(base: string, r: RouteInfo, authorization = ''): Promise<RawAnswer> {
  // A parameter shaped like the gateway's ids (`dec_…`; a ledger seq is a number), so a route that declares its
  // parameters' shape is still refused by its guard rather than as a path that names nothing.
  const path = r.pattern.replace(/:seq\b/g, '1').replace(/:[a-z_]+/g, 'dec_x1').replace('*', 'x');
  const head = [`${r.method.toUpperCase()} ${path} HTTP/1.1`, 'Host: x'];
  if (authorization) head.push(`Authorization: ${authorization}`);
  if (r.method !== 'get') head.push('Content-Type: application/x-www-form-urlencoded', `Content-Length: ${1 << 30}`);
  return rawRequest(Number(new URL(base).port), head.join('\r\n'));
}

const errorOf = (a: RawAnswer): { code: number; message: string } => (JSON.parse(a.body) as { error: { code: number; message: string } }).error;

describe('how routes authenticate', () => {
  it('every route of every server declares its kind, and the kinds are the expected ones', () => {
    const seen = new Set<string>();
    for (const [server, , routes] of servers()) {
      expect(routes.length, server).toBeGreaterThan(0);
      for (const r of routes) {
        seen.add(name(r));
        const what = `${server}: ${name(r)}`;
        expect(r.auth, what).toBe(expectedKind(r));
        // The scope only where the kind takes one: always for a PAT, on the console's admin forms and pages, nowhere else.
        if (r.auth === 'pat') expect(r.scope, what).toMatch(/^(runtime:read|runtime:write|admin:manage)$/);
        else if (ADMIN_FORMS.has(name(r))) expect(r.scope, what).toBe('admin:manage');
        else expect(r.scope, what).toBeNull();
        if (PROXY.has(name(r))) expect(r.scope, what).toBe('runtime:write');
      }
    }
    // The rules above were met by the routes they name, not passed vacuously.
    for (const n of [...SIDECAR, ...ADMIN_FORMS, ...PROXY, 'get /console', 'post /console/logout', 'get /v1/telemetry/metrics', 'get /v1/policies']) expect(seen, n).toContain(n);
  });

  it("each route is refused from its head, before its body is read, the way its kind's guard refuses", async () => {
    let checked = 0;
    for (const [server, base, routes] of servers()) {
      for (const r of routes) {
        if (r.auth === 'public') continue;
        const what = `${server}: ${name(r)}`;
        const a = await send(base, r);
        checked++;
        if (r.auth === 'session' && r.method === 'get') {
          // A console page sends whoever is not signed in to the sign-in form.
          expect({ what, status: a.status, location: a.headers['location'] }).toEqual({ what, status: 303, location: '/console/login' });
          continue;
        }
        // Not 413: the declared gibibyte was never read.
        expect({ what, status: a.status }).toEqual({ what, status: 401 });
        if (r.auth === 'session') expect(errorOf(a).message, what).toBe('this needs a login session');
        if (r.auth === 'sidecar') expect(errorOf(a).message, what).toBe('a sidecar token (adu_sct_…) is required');
        // The proxy answers its own refusals, with the verdict headers.
        if (PROXY.has(name(r))) expect(a.headers['x-svc-verdict'], what).toBe('DENIED');
        // A PAT does not open a sidecar's route.
        if (r.auth === 'sidecar') expect(errorOf(await send(base, r, `Bearer ${cp.bootstrapToken ?? t.adminToken}`)).message, what).toBe('a sidecar token (adu_sct_…) is required');
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});
