import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import type { RouteInfo } from '../src/http/server.js';

let t: TestGateway;
let upstream: MockUpstream;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;

beforeAll(async () => {
  upstream = await new MockUpstream().start();
  t = await startTestGateway({ upstreamBaseUrl: `${upstream.url}/v1` });
  tok = await t.tenant('malformed');
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});

interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/** One request written byte for byte on a fresh connection (no client library normalises the path or headers). */
function raw(base: string, request: string | Buffer): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(port), hostname, () => sock.write(request));
    const parts: Buffer[] = [];
    sock.on('data', (d: Buffer) => parts.push(d));
    sock.on('error', reject);
    sock.on('close', () => {
      const text = Buffer.concat(parts).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
      resolve({ status: m ? Number(m[1]) : 0, head, body: split < 0 ? '' : text.slice(split + 4) });
    });
  });
}

function requestText(method: string, path: string, opts: { token?: string; headers?: string[]; body?: string } = {}): string {
  const lines = [`${method.toUpperCase()} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  if (!(opts.headers ?? []).some((h) => /^x-svc-agent-id:/i.test(h))) lines.push('x-svc-agent-id: fuzz');
  if (opts.token) lines.push(`Authorization: Bearer ${opts.token}`);
  lines.push(...(opts.headers ?? []));
  const body = opts.body ?? (method === 'get' || method === 'delete' ? '' : '{}');
  if (body && !(opts.headers ?? []).some((h) => /^content-length:/i.test(h))) lines.push(`Content-Length: ${Buffer.byteLength(body)}`, 'Content-Type: application/json');
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Segments a client may put where a path parameter goes: broken percent-encoding, traversal, NUL, overlong. */
const ODD_SEGMENTS = [
  '%E0%A4%A',
  '%ZZ',
  '%',
  '%%',
  '%u0041',
  '%C0%AF',
  '%ED%A0%80',
  '%FF%FE',
  '..',
  '%2e%2e',
  '%2F..%2F',
  '%00',
  'a%00b',
  '~!$&\'()*+,;=:@',
  'x'.repeat(1500),
  `${'%41'.repeat(600)}`,
  'x'.repeat(6000),
];

/** A request path for a route pattern with every parameter (and a wildcard) replaced by `segment`; appended to a static one. */
function fill(pattern: string, segment: string): string {
  const parts = pattern.split('/');
  if (!parts.some((p) => p.startsWith(':') || p === '*')) return `${pattern}/${segment}`;
  return parts.map((p) => (p.startsWith(':') || p === '*' ? segment : p)).join('/');
}

/** Paths to try against a route; `refused`: the path itself is malformed, so only a 4xx is acceptable. */
function pathsFor(route: RouteInfo): { path: string; refused: boolean }[] {
  const hasParam = route.pattern.split('/').some((p) => p.startsWith(':') || p === '*');
  const out = ODD_SEGMENTS.map((s) => ({ path: fill(route.pattern, s), refused: true }));
  if (hasParam) out.push({ path: `${route.pattern}/%E0%A4%A`, refused: true });
  out.push({ path: `${route.pattern}%ZZ`, refused: true });
  // Odd query strings on the route itself: a route that reads no query may well answer normally; never a 5xx.
  out.push({ path: `${route.pattern}?%E0%A4%A=%ZZ&limit=%`, refused: false }, { path: `${route.pattern}?cursor=%E0%A4%A&x=%%&=&&`, refused: false });
  return out;
}

/** An answer the gateway may give to a malformed request: a 4xx, with the error envelope when it is ours. */
function expectRefused(r: RawAnswer, what: string): void {
  expect(r.status, `${what}: ${r.head.split('\r\n')[0]}`).toBeGreaterThanOrEqual(400);
  expect(r.status, `${what}: ${r.head.split('\r\n')[0]} ${r.body.slice(0, 200)}`).toBeLessThan(500);
  if (/content-type: application\/json/i.test(r.head)) {
    const body = JSON.parse(r.body) as { error?: { code?: number; type?: string; traceId?: string } };
    expect(body.error?.code, what).toBe(r.status);
    expect(typeof body.error?.traceId, what).toBe('string');
  }
}

async function stillServing(): Promise<void> {
  expect((await call(t.url, 'GET', '/health')).status).toBe(200);
  expect((await call(t.authUrl, 'GET', '/health')).status).toBe(200);
  expect((await call(t.url, 'GET', '/v1/policies', { token: tok.viewer })).status).toBe(200);
}

describe('malformed requests never take the process down', () => {
  it('exposes the routes of both ports', () => {
    const api = t.gw.routes.api.map((r) => `${r.method} ${r.pattern}`);
    expect(api).toContain('get /v1/policies/:id');
    expect(api).toContain('post /admin/decisions/:id/resolve');
    expect(t.gw.routes.auth.map((r) => `${r.method} ${r.pattern}`)).toContain('post /token');
  });

  it('odd paths on every route of both ports, with and without a token: a 4xx envelope, and still serving', async () => {
    const ports: [string, readonly RouteInfo[]][] = [
      [t.url, t.gw.routes.api],
      [t.authUrl, t.gw.routes.auth],
    ];
    let sent = 0;
    for (const [base, routes] of ports) {
      for (const route of routes) {
        for (const { path, refused } of pathsFor(route)) {
          for (const token of [undefined, tok.admin]) {
            const r = await raw(base, requestText(route.method, path, { token }));
            const what = `${route.method} ${path.slice(0, 80)} ${token ? 'with' : 'without'} token`;
            if (refused) {
              // A path that names nothing is 404; a path the router matched with a malformed parameter is 400.
              if (path.includes('%E0%A4%A')) expect([400, 404, 405], what).toContain(r.status);
              expectRefused(r, what);
            } else {
              expect(r.status, what).toBeGreaterThanOrEqual(200);
              expect(r.status, `${what}: ${r.body.slice(0, 200)}`).toBeLessThan(500);
            }
            sent++;
          }
        }
      }
      await stillServing();
    }
    expect(sent).toBeGreaterThan(200);
  });

  it('a malformed percent-encoded parameter is a 400 envelope, nothing changed', async () => {
    const before = (await call(t.url, 'GET', '/v1/policies', { token: tok.admin })).body.total;
    for (const path of ['/v1/policies/%E0%A4%A', '/admin/decisions/%ZZ/resolve']) {
      const method = path.endsWith('resolve') ? 'POST' : 'GET';
      expectEnvelope(await call(t.url, method, path, { token: tok.admin, body: method === 'POST' ? { resolution: 'APPROVED' } : undefined }), 400, 'invalid_request');
      expectEnvelope(await call(t.url, method, path, { body: method === 'POST' ? { resolution: 'APPROVED' } : undefined }), 400, 'invalid_request');
    }
    expectEnvelope(await call(t.url, 'DELETE', '/v1/policies/%E0%A4%A', { token: tok.admin }), 400, 'invalid_request');
    expect((await call(t.url, 'GET', '/v1/policies', { token: tok.admin })).body.total).toBe(before);
    await stillServing();
  });

  it('random parameter bytes (property): always a 4xx, never a crash', async () => {
    const routes = [...t.gw.routes.api.map((r) => [t.url, r] as const), ...t.gw.routes.auth.map((r) => [t.authUrl, r] as const)];
    const segment = fc
      .array(fc.oneof(fc.constantFrom('%', '%E0', '%A4', '%ZZ', '%ED%A0%80', '%2F', '..', '%00', '%7F', '~'), fc.stringMatching(/^[A-Za-z0-9._-]{0,4}$/)), { minLength: 1, maxLength: 12 })
      .map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), segment, fc.boolean(), async ([base, route], seg, withToken) => {
        const r = await raw(base, requestText(route.method, fill(route.pattern, seg), { token: withToken ? tok.admin : undefined }));
        expectRefused(r, `${route.method} ${fill(route.pattern, seg)}`);
      }),
      { numRuns: 150, seed: 20261123 },
    );
    await stillServing();
  });

  it('odd headers (traceparent, Content-Length, agent id) and odd query strings: the documented 4xx or a normal answer, never a crash', async () => {
    // 0: uWS itself closed the connection without an answer (a header it will not parse).
    const cases: { req: string; expect: number | readonly number[] }[] = [
      { req: requestText('get', '/v1/policies', { token: tok.viewer, headers: ['traceparent: 00-%%%%-zz-01'] }), expect: 200 },
      { req: requestText('get', '/v1/policies', { token: tok.viewer, headers: [`traceparent: ${'f'.repeat(3000)}`] }), expect: 200 },
      { req: requestText('get', '/v1/policies', { token: tok.viewer, headers: ['traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra-%E0'] }), expect: 200 },
      { req: requestText('post', '/v1/decide', { token: tok.admin, headers: ['Content-Length: abc'], body: '{}' }), expect: 400 },
      { req: requestText('post', '/v1/decide', { token: tok.admin, headers: ['Content-Length: -1'], body: '{}' }), expect: 400 },
      { req: requestText('post', '/v1/decide', { token: tok.admin, headers: ['Content-Length: 1e3'], body: '{}' }), expect: 400 },
      { req: requestText('post', '/v1/decide', { token: tok.admin, headers: ['Content-Length: 99999999999999999999999999'], body: '{}' }), expect: 400 },
      { req: requestText('post', '/v1/decide', { token: tok.admin, headers: ['Content-Length: 2', 'Content-Length: 40'], body: '{}' }), expect: 400 },
      { req: requestText('post', '/v1/proxy/chat/completions', { token: tok.admin, headers: ['Content-Length: 2', 'Content-Length: 40'], body: '{}' }), expect: 400 },
      { req: requestText('post', '/token', { token: tok.admin, headers: ['Content-Length: 2', 'Content-Length: 2'], body: '{}' }), expect: 400 },
      { req: requestText('post', '/v1/decide', { token: tok.admin, headers: ['Content-Length: 2', 'Transfer-Encoding: chunked'], body: '{}' }), expect: 400 },
      { req: requestText('post', '/v1/decide', { token: tok.admin, headers: [`Content-Length: ${20 * 1024 * 1024}`], body: '{}' }), expect: 413 },
      { req: requestText('get', '/v1/policies?limit=1e3', { token: tok.viewer }), expect: 400 },
      { req: requestText('get', '/v1/policies?limit=-1&cursor=%E0%A4%A', { token: tok.viewer }), expect: 400 },
      { req: requestText('get', '/v1/events?agentId=%E0%A4%A&order=%ZZ', { token: tok.viewer }), expect: 400 },
      { req: requestText('get', `/v1/events/proofs/inclusion?seq=${'9'.repeat(400)}`, { token: tok.viewer }), expect: 400 },
      { req: requestText('get', '/v1/telemetry/query/stats?metric=%00&from=-1&to=%ZZ', { token: tok.viewer }), expect: 400 },
      { req: requestText('get', '/v1/proxy/models', { token: tok.admin, headers: ['x-svc-agent-id: a\u0001b'] }), expect: [0, 400] },
      { req: requestText('get', '/v1/proxy/models', { token: tok.admin, headers: [`x-svc-agent-id: ${'x'.repeat(300)}`] }), expect: 400 },
      { req: requestText('get', '/v1/policies', { headers: ['Authorization: Bearer %E0%A4%A'] }), expect: 401 },
      { req: requestText('get', '/v1/policies', { headers: ['Authorization: Basic %%%'] }), expect: 401 },
    ];
    for (const c of cases) {
      const base = c.req.startsWith('POST /token') ? t.authUrl : t.url;
      const r = await raw(base, c.req);
      const what = c.req.split('\r\n').slice(0, 6).join(' | ').slice(0, 200);
      expect(typeof c.expect === 'number' ? [c.expect] : c.expect, `${what} -> ${r.head.split('\r\n')[0]} ${r.body.slice(0, 200)}`).toContain(r.status);
    }
    await stillServing();
  });

  it('conflicting Content-Length headers are refused with the 400 envelope and the connection closed (no framing by the first)', async () => {
    const before = (await call(t.url, 'GET', '/v1/policies', { token: tok.admin })).body.total;
    const policy = JSON.stringify({ name: 'smuggled', type: 'content_filter', risk: 1, rules: { patterns: ['x'] } });
    const r = await raw(
      t.url,
      [
        'POST /v1/policies HTTP/1.1',
        'Host: x',
        `Authorization: Bearer ${tok.admin}`,
        'Content-Type: application/json',
        `Content-Length: ${policy.length}`,
        `Content-Length: ${policy.length + 80}`,
        '',
        policy,
      ].join('\r\n'),
    );
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ error: { code: 400, type: 'invalid_request' } });
    expect((await call(t.url, 'GET', '/v1/policies', { token: tok.admin })).body.total).toBe(before);
  });
});
