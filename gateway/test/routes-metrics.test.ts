import OpenAI from 'openai';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '@aduana/shared/local-servers';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { TelemetryReceiver, type ReceivedMetricPoint } from './helpers/telemetry-receiver.js';
import { WireMock } from './helpers/wire-mock.js';
import { poll } from '../../shared/test/helpers/poll.js';
import type { RouteSpec } from '../src/proxy/routing/route-spec.js';

// What routes did, counted by target (docs/telemetry.md, "Prometheus"; docs/routing.md, "Watching routes"): through the
// official OpenAI SDK, a mock provider on loopback that fails on cue and a port nothing listens on, counted on
// /v1/telemetry/metrics (a tenant's token sees its own tenant only, the scrape credential every tenant) and exported
// to an OTLP receiver on loopback; calls served by a request thread (GATEWAY_THREADS=2 with AGENT_PORT) count alike.

const SCRAPE = 'scrape-route-metrics-0123456789abcdef0123';

let t: TestGateway;
let rx: TelemetryReceiver;
let up: WireMock;
let dead = '';

beforeAll(async () => {
  up = await new WireMock().start();
  rx = await new TelemetryReceiver().start();
  dead = `http://127.0.0.1:${await freeLoopbackPort()}/v1`;
  t = await startTestGateway({
    credentialsKey: 'cd'.repeat(32),
    upstreamBaseUrl: `${up.url}/v1`,
    gatewayThreads: 2,
    agentPort: 0,
    ledgerWriter: 'thread',
    metricsScrapeToken: SCRAPE,
    otlpEndpoint: rx.url,
    telemetryFlushMs: 50,
    telemetryRetryBaseMs: 50,
    telemetryRetryMaxMs: 200,
  });
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
  await up?.close();
});
beforeEach(() => up.reset());

const FAST = { backoff_ms: { base: 1, max: 5 } };

/** A refused primary and a fallback that answers under another model name. */
const withFallback = (breaker: RouteSpec['breaker']): RouteSpec => ({
  targets: { down: { provider: 'openai', base_url: dead, credential: 'key-a' }, backup: { provider: 'openai', base_url: `${up.url}/v1`, credential: 'key-b' } },
  models: { 'gpt-4o': { strategy: 'fallback', targets: ['down', { target: 'backup', model: 'gpt-4o-mini' }] } },
  retry: FAST,
  ...(breaker ? { breaker } : {}),
});

/** A tenant with two credentials stored and `routes`. */
async function tenantWith(id: string, routes: RouteSpec): Promise<Record<'admin' | 'operator' | 'viewer', string>> {
  const tok = await t.tenant(id);
  for (const name of ['key-a', 'key-b']) expect((await call(t.url, 'PUT', `/v1/credentials/${name}`, { token: tok.admin, body: { secret: `sk-${name}-route-metrics-secret` } })).status).toBe(201);
  const put = await call(t.url, 'PUT', '/v1/routes', { token: tok.admin, body: routes });
  expect(put.status, put.text).toBe(200);
  return tok;
}

/** One call on a connection of its own: on the agents' port, consecutive ones land on the two threads in turn. */
async function ask(base: string, token: string, model = 'gpt-4o'): Promise<string> {
  const sdk = new OpenAI({ apiKey: token, baseURL: `${base}/v1/proxy`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'metrics-agent', connection: 'close' } });
  const { data } = await sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] }).withResponse();
  return data.choices[0]!.message.content ?? '';
}

const scrape = async (token: string): Promise<string> => {
  const r = await call(t.url, 'GET', '/v1/telemetry/metrics', { token });
  expect(r.status, r.text).toBe(200);
  return r.text;
};

/** The value of a family's sample whose labels are exactly `labels` (NaN: no such sample). */
function value(text: string, family: string, labels: Record<string, string>): number {
  const f = parsePrometheusTextFormat(text).find((x) => x.name === family);
  const m = f?.metrics.find((x) => Object.keys(x.labels ?? {}).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
  return Number(m?.value ?? NaN);
}

/** The last point the receiver got of `name` whose attributes include `attrs`. */
function lastPoint(name: string, attrs: Record<string, string>): ReceivedMetricPoint | undefined {
  return rx.metrics.findLast((p) => p.name === name && Object.entries(attrs).every(([k, v]) => p.attributes[k] === v));
}

const TENANT = 'route-metrics-a';

describe('route metrics', () => {
  it('count a refused primary and its fallback by target, model and outcome; a breaker opened by consecutive failures is 1, then 0 after open_s', async () => {
    const tok = await tenantWith(TENANT, withFallback({ consecutive_failures: 2, open_s: 3 }));
    up.next({ text: 'one' });
    expect(await ask(t.url, tok.operator)).toBe('one');
    // The second refusal opens down's breaker; the backup's 503 is retried on it after a backoff.
    up.next({ status: 503 }, { text: 'two' });
    expect(await ask(t.url, tok.operator)).toBe('two');

    const text = await scrape(tok.viewer);
    const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f.type]));
    expect(families.get('aduana_route_attempts_total')).toBe('COUNTER');
    expect(families.get('aduana_route_fallbacks_total')).toBe('COUNTER');
    expect(families.get('aduana_route_breakers_open')).toBe('GAUGE');
    const attempts = (target: string, model: string, outcome: string) => value(text, 'aduana_route_attempts_total', { tenant: TENANT, target, model, outcome });
    expect(attempts('down', 'gpt-4o', 'refused')).toBe(2);
    expect(attempts('backup', 'gpt-4o-mini', 'ok')).toBe(2);
    expect(attempts('backup', 'gpt-4o-mini', '5xx')).toBe(1);
    expect(value(text, 'aduana_route_fallbacks_total', { tenant: TENANT, target: 'backup', model: 'gpt-4o-mini' })).toBe(2);
    expect(value(text, 'aduana_route_fallbacks_total', { tenant: TENANT, target: 'down', model: 'gpt-4o' })).toBe(0);
    expect(value(text, 'aduana_route_breakers_open', { tenant: TENANT, target: 'down' })).toBe(1);
    expect(value(text, 'aduana_route_breakers_open', { tenant: TENANT, target: 'backup' })).toBe(0);

    // Closed once open_s has passed (no call needed: the trial is the next call's).
    await poll(async () => value(await scrape(tok.viewer), 'aduana_route_breakers_open', { tenant: TENANT, target: 'down' }), { what: "down's breaker back to 0", until: (v) => v === 0, timeoutMs: 20_000, intervalMs: 200 });
  });

  it('the operator sees the same counts, and they reach the OTLP receiver; another tenant sees its own routes only', async () => {
    const other = await tenantWith('route-metrics-b', {
      targets: { solo: { provider: 'openai', base_url: `${up.url}/v1`, credential: 'key-a' } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: ['solo'] } },
    });
    up.next({ text: 'b' });
    expect(await ask(t.url, other.operator)).toBe('b');

    const all = await scrape(SCRAPE);
    expect(value(all, 'aduana_route_attempts_total', { tenant: TENANT, target: 'down', model: 'gpt-4o', outcome: 'refused' })).toBe(2);
    expect(value(all, 'aduana_route_fallbacks_total', { tenant: TENANT, target: 'backup', model: 'gpt-4o-mini' })).toBe(2);
    expect(value(all, 'aduana_route_attempts_total', { tenant: 'route-metrics-b', target: 'solo', model: 'gpt-4o', outcome: 'ok' })).toBe(1);

    const theirs = await scrape(other.viewer);
    expect(theirs).not.toContain(TENANT);
    expect(value(theirs, 'aduana_route_attempts_total', { tenant: 'route-metrics-b', target: 'solo', model: 'gpt-4o', outcome: 'ok' })).toBe(1);
    for (const f of parsePrometheusTextFormat(theirs)) for (const m of f.metrics) if (m.labels?.['tenant'] !== undefined) expect(m.labels['tenant']).toBe('route-metrics-b');

    // Cumulative: the receiver's last point of each series carries the totals.
    const exported = (name: string, attrs: Record<string, string>, want: number) =>
      poll(() => lastPoint(name, { tenant_id: TENANT, ...attrs })?.value, { what: `${name} ${JSON.stringify(attrs)} = ${want} at the receiver`, until: (v) => v === want });
    await exported('route.attempt_count', { target: 'down', model: 'gpt-4o', outcome: 'refused' }, 2);
    await exported('route.attempt_count', { target: 'backup', model: 'gpt-4o-mini', outcome: 'ok' }, 2);
    await exported('route.attempt_count', { target: 'backup', model: 'gpt-4o-mini', outcome: '5xx' }, 1);
    await exported('route.fallback_count', { target: 'backup', model: 'gpt-4o-mini' }, 2);
    // Exported while down's breaker was open, and since it closed.
    expect(rx.metrics.some((p) => p.name === 'route.breakers_open' && p.attributes['tenant_id'] === TENANT && p.attributes['target'] === 'down' && p.value === 1)).toBe(true);
    await exported('route.breakers_open', { target: 'down' }, 0);
  });

  it("count calls served by the agents' port's request thread as the main thread's", async () => {
    const tenant = 'route-metrics-threads';
    const tok = await tenantWith(tenant, withFallback(undefined));
    // Four connections: two served by the main thread's agents' app, two by the request thread's.
    for (let i = 0; i < 4; i++) {
      up.next({ text: `threaded ${i}` });
      expect(await ask(t.agentsUrl, tok.operator)).toBe(`threaded ${i}`);
    }
    const counted = async () => {
      const text = await scrape(tok.viewer);
      return [
        value(text, 'aduana_route_attempts_total', { tenant, target: 'down', model: 'gpt-4o', outcome: 'refused' }),
        value(text, 'aduana_route_attempts_total', { tenant, target: 'backup', model: 'gpt-4o-mini', outcome: 'ok' }),
        value(text, 'aduana_route_fallbacks_total', { tenant, target: 'backup', model: 'gpt-4o-mini' }),
      ];
    };
    await poll(counted, { what: 'four calls counted from both threads', until: (v) => v.every((n) => n === 4) });
  });
});
