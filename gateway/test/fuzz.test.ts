import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import { rawRequest, type RawAnswer } from './helpers/raw-http.js';

/**
 * Seeded, time-bounded fuzzing of every route of both ports through raw sockets: random request targets (malformed
 * percent-encoding, overlong and odd segments, random queries), random credentials and headers, random JSON shapes and
 * raw bytes as bodies. What must hold for every request: an answer (never a dropped connection), no 5xx other than
 * the documented upstream ones on the proxy, the error envelope on every error; afterwards both ports serve and every
 * tenant's ledger verifies. FUZZ_SEED and FUZZ_RUNS reproduce or widen a run.
 */
const SEED = Number(process.env['FUZZ_SEED'] ?? 20261123);
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 1500);
const TIME_LIMIT_MS = Number(process.env['FUZZ_MS'] ?? 25_000);

let t: TestGateway;
let mock: MockUpstream;
let apiPort: number;
let authPort: number;
const tokens: string[] = [];

beforeAll(async () => {
  mock = await new MockUpstream().start();
  t = await startTestGateway({ upstreamBaseUrl: mock.url });
  apiPort = Number(new URL(t.url).port);
  authPort = Number(new URL(t.authUrl).port);
  const a = await t.tenant('fuzz-a');
  const b = await t.tenant('fuzz-b');
  tokens.push(a.admin, a.operator, a.viewer, b.admin, b.operator, t.adminToken);
  // One tenant with the paid pack, so content filters, PII redaction and output checks run under the fuzzer too.
  expect((await call(t.url, 'POST', '/v1/policies/apply-pack', { token: a.admin, body: { pack: 'RUNTIME_PAID_POLICIES' } })).status).toBe(200);
  mock.setDefault({ content: 'Mail ana@example.com at https://example.org, total 42.' });
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});

interface Target {
  port: 'api' | 'auth';
  method: string;
  pattern: string;
}

/** Every route of both ports, as the servers registered them. */
function targets(): Target[] {
  const out: Target[] = [];
  for (const r of t.gw.routes.api) out.push({ port: 'api', method: r.method.toUpperCase(), pattern: r.pattern });
  for (const r of t.gw.routes.auth) out.push({ port: 'auth', method: r.method.toUpperCase(), pattern: r.pattern });
  return out;
}

const hostileSegment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('%', '%Z', '%ZZ', '%E0%A4%A', '%C0%AF', '%00', '%2F', '%2e%2e', '..', '.', '%FF%FE', '%ED%A0%80', '%F4%90%80%80', '%u0041', '') },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s)) },
  { weight: 1, arbitrary: fc.nat({ max: 5_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 3, arbitrary: fc.constantFrom('1', '0', '-1', '18446744073709551616', '1e308', 'NaN', 'dec_01J0000000000000000000000', 'pol_x') },
);

const query = fc.oneof(
  fc.constant(''),
  fc
    .array(
      fc.tuple(
        fc.constantFrom('limit', 'cursor', 'tenantId', 'tenant_id', 'seq', 'tree_size', 'from', 'to', 'metric', 'order', 'agent_id', 'event_type', 'status', 'x'),
        fc.oneof(hostileSegment, fc.constantFrom('fuzz-a', 'fuzz-b', 'default', '50', '501', '0', 'desc')),
      ),
      { maxLength: 5 },
    )
    .map((pairs) => '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  fc.constantFrom('?', '?&&', '?%', '?a=%ZZ', '?tenantId=&tenant_id=fuzz-b', '?tenant_id=fuzz-a&tenant_id=fuzz-b'),
);

const jsonShape = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record(
    {
      agent_id: fc.oneof(fc.string(), fc.constant('agent-1'), fc.jsonValue({ maxDepth: 1 })),
      action: fc.oneof(fc.record({ type: fc.string(), target: fc.string(), payload: fc.jsonValue({ maxDepth: 3 }) }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 2 })),
      context: fc.jsonValue({ maxDepth: 2 }),
      model: fc.oneof(fc.constant('gpt-4o-mini'), fc.string(), fc.jsonValue({ maxDepth: 1 })),
      messages: fc.oneof(
        fc.array(fc.record({ role: fc.constantFrom('user', 'system', 'assistant', 'tool', 'x'), content: fc.oneof(fc.string(), fc.constant('card 4111 1111 1111 1111'), fc.jsonValue({ maxDepth: 2 })) }, { requiredKeys: [] }), { maxLength: 3 }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      stream: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 0 })),
      input: fc.jsonValue({ maxDepth: 2 }),
      prompt: fc.jsonValue({ maxDepth: 2 }),
      name: fc.jsonValue({ maxDepth: 1 }),
      type: fc.oneof(fc.constantFrom('content_filter', 'rate_limit', 'pii_redaction', 'budget', 'entropy_check', 'bond_enforcement', 'hallucination_shield'), fc.string()),
      rules: fc.jsonValue({ maxDepth: 3 }),
      risk: fc.jsonValue({ maxDepth: 0 }),
      enabled: fc.jsonValue({ maxDepth: 0 }),
      pack: fc.oneof(fc.constantFrom('FREE_TIER_POLICIES', 'RUNTIME_PAID_POLICIES'), fc.string()),
      resolution: fc.oneof(fc.constantFrom('APPROVED', 'REJECTED'), fc.string()),
      role: fc.oneof(fc.constantFrom('admin', 'operator', 'viewer'), fc.string()),
      expires_in_days: fc.jsonValue({ maxDepth: 0 }),
      events: fc.jsonValue({ maxDepth: 3 }),
      event_type: fc.jsonValue({ maxDepth: 0 }),
      payload: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: [] },
  ),
);

const body = fc.oneof(
  { weight: 5, arbitrary: jsonShape.map((v) => JSON.stringify(v) ?? '') },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '{"a":1,"a":2}', '[]'.repeat(3), '\u0000', 'null', '{"messages":[],"messages":[{"role":"user","content":"x"}]}') },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b).toString('latin1')) },
);

const headerValue = fc.oneof(
  { weight: 8, arbitrary: fc.string({ maxLength: 64, unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'x'.repeat(3_000), 'x'.repeat(9_000)) },
);

const requestArb = fc.record({
  target: fc.nat(),
  method: fc.oneof({ weight: 6, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') }),
  segments: fc.array(hostileSegment, { minLength: 1, maxLength: 3 }),
  mangle: fc.oneof({ weight: 6, arbitrary: fc.constant('param') }, { weight: 1, arbitrary: fc.constantFrom('append', 'double-slash') }),
  query,
  auth: fc.oneof(
    { weight: 6, arbitrary: fc.nat({ max: 5 }).map((i) => `Bearer ${tokens[i] ?? ''}`) },
    { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer adu_pat_x', 'Basic Zm9vOmJhcg==', 'bearer  ' + 'a'.repeat(500)) },
    { weight: 1, arbitrary: headerValue },
  ),
  agent: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('fuzz-agent', '') }, { weight: 1, arbitrary: headerValue }),
  traceparent: fc.oneof(fc.constant(''), headerValue, fc.constant('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')),
  contentType: fc.constantFrom('application/json', '', 'text/plain', 'application/json; charset=utf-8'),
  body,
});

function buildPath(pattern: string, segments: string[], mangle: string): string {
  let i = 0;
  const path = pattern.replace(/:[^/]+|\*/g, () => segments[i++ % segments.length] ?? 'x');
  if (mangle === 'append') return `${path}/${segments.join('/')}`;
  if (mangle === 'double-slash') return path.replace(/\//g, '//');
  return path;
}

function check(answer: RawAnswer, target: Target, request: string): void {
  const where = `${request.split('\r\n')[0]} → ${answer.status} ${answer.body.slice(0, 200)}`;
  expect(answer.status, `no answer: ${where}`).toBeGreaterThan(0);
  const documented5xx = target.port === 'api' && target.pattern.startsWith('/v1/proxy') ? [502, 503] : [503];
  if (answer.status >= 500) expect(documented5xx, where).toContain(answer.status);
  // 431 comes from the HTTP parser itself (headers over uWebSockets.js's limit), before any route runs.
  if (answer.status >= 400 && answer.status !== 431) {
    const env = JSON.parse(answer.body) as { error?: { code?: number; type?: string; traceId?: string } };
    expect(env.error?.code, where).toBe(answer.status);
    expect(typeof env.error?.type, where).toBe('string');
  }
}

describe('fuzzing every route of both ports', () => {
  it('answers every random request with a documented status and envelope; the process keeps serving; ledgers verify', async () => {
    const all = targets();
    expect(all.length).toBeGreaterThan(20);
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const target = all[r.target % all.length]!;
        const path = buildPath(target.pattern, r.segments, r.mangle) + r.query;
        const method = r.method || target.method;
        const sendBody = method !== 'GET' && method !== 'HEAD' ? Buffer.from(r.body, 'latin1') : Buffer.alloc(0);
        const lines = [`${method} ${path} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close'];
        if (r.auth) lines.push(`authorization: ${r.auth}`);
        if (r.agent) lines.push(`x-svc-agent-id: ${r.agent}`);
        if (r.traceparent) lines.push(`traceparent: ${r.traceparent}`);
        if (r.contentType) lines.push(`content-type: ${r.contentType}`);
        if (sendBody.length || method === 'POST' || method === 'PUT') lines.push(`content-length: ${sendBody.length}`);
        const head = lines.join('\r\n');
        const answer = await rawRequest(target.port === 'api' ? apiPort : authPort, head, sendBody);
        seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
        if (method === 'HEAD') return;
        check(answer, target, head);
      }),
      { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false, endOnFailure: true },
    );

    // The run reached past the edge: served calls, refusals of each kind, and proxied calls the provider answered.
    const tally = JSON.stringify(Object.fromEntries(seen));
    for (const status of [200, 400, 401, 403, 404]) expect(seen.get(status), `status ${status} never seen: ${tally}`).toBeGreaterThan(0);
    expect(mock.received.length).toBeGreaterThan(0);
    expect((await call(t.url, 'GET', '/health')).status).toBe(200);
    expect((await call(t.authUrl, 'GET', '/health')).status).toBe(200);
    for (const token of [tokens[0]!, tokens[3]!, t.adminToken]) {
      const v = await call(t.url, 'GET', '/v1/events/verify', { token });
      expect(v.status).toBe(200);
      expect(v.body.ok, JSON.stringify(v.body)).toBe(true);
      expect(v.body.checked).toBe(v.body.expectedSize);
    }
  }, 120_000);
});
