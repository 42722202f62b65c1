import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '@aduana/shared/local-servers';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { WireMock } from './helpers/wire-mock.js';
import { capturingLogger, dataFiles } from './helpers/test-records.js';
import type { RouteSpec } from '../src/proxy/routing/route-spec.js';
import { PriceTable } from '../src/proxy/pricing/price-table.js';

// Routes (docs/routing.md) through the official OpenAI SDK, unchanged but for its base URL and key: two mock providers
// on loopback that fail on cue and a port nothing listens on. Each case checks what the agent got, which target
// answered, the attempts in the call's ledger entry and what was counted; and no secret is ever in an answer, a
// ledger entry or the raw store.

const KEY_A = 'sk-route-secret-aaaaaaaaaaaaaaaa';
const KEY_B = 'sk-route-secret-bbbbbbbbbbbbbbbb';
const KEY_BAD = 'sk-route-secret-revoked-cccccccc';

let t: TestGateway;
let primary: WireMock;
let spare: WireMock;
let dead = '';
let seq = 0;
const logLines: string[] = [];

beforeAll(async () => {
  primary = await new WireMock().start();
  spare = await new WireMock().start();
  dead = `http://127.0.0.1:${await freeLoopbackPort()}/v1`;
  t = await startTestGateway({ credentialsKey: 'cd'.repeat(32), upstreamBaseUrl: `${spare.url}/v1`, upstreamApiKey: 'sk-default-route' }, { logger: capturingLogger(logLines, 'routes-test') });
});
afterAll(async () => {
  await t?.close();
  await primary?.close();
  await spare?.close();
});
beforeEach(() => {
  primary.reset();
  spare.reset();
});

/** A tenant of its own with the given routes and the three credentials stored. */
async function tenantWith(routes: RouteSpec): Promise<{ id: string; admin: string; operator: string; sdk: OpenAI }> {
  const id = `routes-${++seq}`;
  const tok = await t.tenant(id);
  for (const [name, secret] of [['key-a', KEY_A], ['key-b', KEY_B], ['key-bad', KEY_BAD]] as const) {
    const r = await call(t.url, 'PUT', `/v1/credentials/${name}`, { token: tok.admin, body: { secret } });
    expect(r.status, r.text).toBe(201);
  }
  const put = await call(t.url, 'PUT', '/v1/routes', { token: tok.admin, body: routes });
  expect(put.status, put.text).toBe(200);
  const sdk = new OpenAI({ apiKey: tok.operator, baseURL: `${t.url}/v1/proxy`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'router-agent' } });
  return { id, admin: tok.admin, operator: tok.operator, sdk };
}

/** The tenant's last proxied call's ledger entry, as GET /v1/events shows it (it waits for appends still queued). */
async function lastEntry(admin: string): Promise<Record<string, unknown>> {
  const r = await call(t.url, 'GET', '/v1/events?limit=20&order=desc', { token: admin });
  const e = (r.body.events as { event_type: string; payload: Record<string, unknown> }[]).find((x) => x.event_type === 'proxy.chat.completions');
  if (e === undefined) throw new Error(`no proxied call in the ledger: ${r.text.slice(0, 300)}`);
  return e.payload;
}

const ask = (sdk: OpenAI, model: string) => sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] }).withResponse();

const FAST = { backoff_ms: { base: 1, max: 5 } };

describe('routes: retries and fallbacks', () => {
  it('a primary that refuses connections: the fallback answers, both attempts are in the entry, x-svc-target names the fallback', async () => {
    const { admin, sdk } = await tenantWith({
      targets: { down: { provider: 'openai', base_url: dead, credential: 'key-a' }, backup: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-b' } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: ['down', { target: 'backup', model: 'gpt-4o-mini' }] } },
      retry: FAST,
    });
    primary.next({ text: 'from the backup', usage: { input: 10, output: 5 } });
    const { data, response } = await ask(sdk, 'gpt-4o');
    expect(data.choices[0]!.message.content).toBe('from the backup');
    expect(response.headers.get('x-svc-target')).toBe('backup');
    expect(response.headers.get('x-svc-attempts')).toBe('2');
    // The backup was asked for the model its route names, with its own credential.
    expect(primary.received[0]!.body!['model']).toBe('gpt-4o-mini');
    expect(primary.received[0]!.headers['authorization']).toBe(`Bearer ${KEY_B}`);
    const e = await lastEntry(admin);
    // Counted on the model that answered; the route keeps what was asked.
    expect(e['model']).toBe('gpt-4o-mini');
    const route = e['route'] as { model: string; target: string; attempts: Record<string, unknown>[] };
    expect(route.model).toBe('gpt-4o');
    expect(route.target).toBe('backup');
    expect(route.attempts.map(({ ms: _ms, ...a }) => a)).toEqual([
      { credential: 'key-a', error: 'refused', model: 'gpt-4o', target: 'down' },
      { credential: 'key-b', model: 'gpt-4o-mini', status: 200, target: 'backup' },
    ]);
    // The operator hears which target failed and why, never its key.
    const warned = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['target'] === 'down');
    expect(warned).toMatchObject({ level: 40, why: 'refused', model: 'gpt-4o', msg: "a route's target gave no answer" });
  });

  it('a 503 is retried on the same target after a backoff; a 500 every time ends with the last one relayed, every attempt recorded', async () => {
    const { admin, sdk } = await tenantWith({
      targets: { only: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-a' } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: ['only'] } },
      retry: { ...FAST, attempts: 2 },
    });
    primary.next({ status: 503 }, { text: 'second time lucky' });
    const ok = await ask(sdk, 'gpt-4o');
    expect(ok.data.choices[0]!.message.content).toBe('second time lucky');
    expect(ok.response.headers.get('x-svc-attempts')).toBe('2');
    expect(((await lastEntry(admin))['route'] as { attempts: { status: number }[] }).attempts.map((a) => a.status)).toEqual([503, 200]);

    primary.next({ status: 500 }, { status: 500 }, { status: 500 }, { text: 'never reached' });
    const err = await ask(sdk, 'gpt-4o').then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect(primary.received).toHaveLength(5);
    const e = await lastEntry(admin);
    expect(e['upstream_status']).toBe(500);
    expect((e['route'] as { attempts: { status: number }[] }).attempts.map((a) => a.status)).toEqual([500, 500, 500]);
  });

  it("a 429 whose Retry-After is past the cap moves to the next target at once; a request's own 4xx is never retried", async () => {
    const { admin, sdk } = await tenantWith({
      targets: { main: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-a' }, other: { provider: 'openai', base_url: `${spare.url}/v1`, credential: 'key-b' } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: ['main', 'other'] } },
      retry: { ...FAST, respect_retry_after_s: 1 },
    });
    primary.next({ status: 429, headers: { 'retry-after': '120' } });
    spare.next({ text: 'the other one' });
    const { data, response } = await ask(sdk, 'gpt-4o');
    expect(data.choices[0]!.message.content).toBe('the other one');
    expect(response.headers.get('x-svc-target')).toBe('other');

    // The 429 rested key-a for its Retry-After: the next call goes to the other target without asking the first.
    spare.next({ text: 'still the other one' });
    expect((await ask(sdk, 'gpt-4o')).data.choices[0]!.message.content).toBe('still the other one');
    expect(primary.received).toHaveLength(1);
    expect(((await lastEntry(admin))['route'] as { attempts: { error?: string }[] }).attempts.map((a) => a.error)).toEqual(['credentials_resting', undefined]);

    const fresh = await tenantWith({
      targets: { main: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-a' }, other: { provider: 'openai', base_url: `${spare.url}/v1`, credential: 'key-b' } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: ['main', 'other'] } },
      retry: FAST,
    });
    primary.next({ status: 400 });
    const err = await ask(fresh.sdk, 'gpt-4o').then(() => null, (e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect(spare.received).toHaveLength(2);
    expect(((await lastEntry(fresh.admin))['route'] as { attempts: unknown[] }).attempts).toHaveLength(1);
  });

  it('a first byte later than timeouts_ms.first_byte is a timeout attempt; with no target left the agent gets 504 naming the target', async () => {
    const { admin, sdk } = await tenantWith({
      targets: { slow: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-a' }, backup: { provider: 'openai', base_url: `${spare.url}/v1`, credential: 'key-b' } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: ['slow', 'backup'] }, 'slow-only': { strategy: 'fallback', targets: ['slow'] } },
      retry: { ...FAST, attempts: 1 },
      timeouts_ms: { first_byte: 300 },
    });
    primary.next({ text: 'too late', delayMs: 2000 });
    spare.next({ text: 'in time' });
    const { data } = await ask(sdk, 'gpt-4o');
    expect(data.choices[0]!.message.content).toBe('in time');
    expect(((await lastEntry(admin))['route'] as { attempts: { error?: string }[] }).attempts[0]!.error).toBe('timeout');

    primary.next({ text: 'too late', delayMs: 2000 }, { text: 'too late', delayMs: 2000 });
    const err = await ask(sdk, 'slow-only').then(() => null, (e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect((err as Error).message).toContain('target slow did not answer in time');
    expect(String((err as Error).message)).not.toContain(KEY_A);
  });

  it('a credential the provider refuses (401) rests, and the next call of the pool goes with the other one at once', async () => {
    const { admin, sdk } = await tenantWith({
      targets: { pool: { provider: 'openai', base_url: `${primary.url}/v1`, credentials: ['key-bad', 'key-a'] } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: ['pool'] } },
      retry: FAST,
    });
    primary.setDefault({ refuseKeys: [KEY_BAD], text: 'served' });
    const first = await ask(sdk, 'gpt-4o');
    expect(first.data.choices[0]!.message.content).toBe('served');
    expect(((await lastEntry(admin))['route'] as { attempts: { credential: string; status: number }[] }).attempts.map((a) => [a.credential, a.status])).toEqual([
      ['key-bad', 401],
      ['key-a', 200],
    ]);
    for (let i = 0; i < 3; i++) {
      await ask(sdk, 'gpt-4o');
      expect(((await lastEntry(admin))['route'] as { attempts: { credential: string }[] }).attempts.map((a) => a.credential)).toEqual(['key-a']);
    }
  });

  it('a credential rested by a 429 is back in rotation once the provider takes it again: later calls are not refused', async () => {
    const { sdk } = await tenantWith({
      targets: { only: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-a' } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: ['only'] } },
      retry: FAST,
    });
    primary.next({ status: 429, headers: { 'retry-after': '0' } }, { text: 'after the rest' }, { text: 'second' }, { text: 'third' });
    expect((await ask(sdk, 'gpt-4o')).data.choices[0]!.message.content).toBe('after the rest');
    expect((await ask(sdk, 'gpt-4o')).data.choices[0]!.message.content).toBe('second');
    expect((await ask(sdk, 'gpt-4o')).data.choices[0]!.message.content).toBe('third');
  });

  it('a stream cut after its first event is never replayed: the agent gets what came, one attempt', async () => {
    const { admin, sdk } = await tenantWith({
      targets: { main: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-a' }, other: { provider: 'openai', base_url: `${spare.url}/v1`, credential: 'key-b' } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: ['main', 'other'] } },
      retry: FAST,
    });
    primary.next({ chunks: ['one ', 'two ', 'three'], dropAfterChunks: 1 });
    let text = '';
    const err = await (async () => {
      const stream = await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'count' }], stream: true });
      for await (const ev of stream) text += ev.choices[0]?.delta?.content ?? '';
    })().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(text).toBe('one ');
    expect(spare.received).toHaveLength(0);
    const e = await lastEntry(admin);
    expect(e['outcome']).toBe('upstream_aborted');
    expect((e['route'] as { attempts: unknown[] }).attempts).toHaveLength(1);
  });
});

describe('routes: breakers and budgets', () => {
  it('a breaker opens after its failures in a row, its target is skipped while open, and one trial call after open_s closes it', async () => {
    const { admin, sdk } = await tenantWith({
      targets: { flaky: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-a' }, steady: { provider: 'openai', base_url: `${spare.url}/v1`, credential: 'key-b' } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: ['flaky', 'steady'] } },
      retry: { ...FAST, attempts: 1, on: [500] },
      breaker: { consecutive_failures: 2, open_s: 1 },
    });
    const targetsTried = async (): Promise<string[]> => ((await lastEntry(admin))['route'] as { attempts: { target: string }[] }).attempts.map((a) => a.target);
    // Two 500s in a row from flaky, each call answered by steady.
    for (let i = 0; i < 2; i++) {
      primary.next({ status: 500 });
      expect((await ask(sdk, 'gpt-4o')).response.headers.get('x-svc-target')).toBe('steady');
      expect(await targetsTried()).toEqual(['flaky', 'steady']);
    }
    // Open: flaky is not tried at all.
    const before = primary.received.length;
    expect((await ask(sdk, 'gpt-4o')).response.headers.get('x-svc-target')).toBe('steady');
    expect(await targetsTried()).toEqual(['steady']);
    expect(primary.received).toHaveLength(before);
    // After open_s one trial goes to flaky; it answers, so the breaker closes and flaky serves the calls after it.
    primary.next({ text: 'flaky is back' }, { text: 'and stays' });
    let trial = '';
    for (let i = 0; i < 200 && trial !== 'flaky'; i++) {
      trial = (await ask(sdk, 'gpt-4o')).response.headers.get('x-svc-target')!;
      if (trial !== 'flaky') await new Promise((r) => setTimeout(r, 25));
    }
    expect(trial).toBe('flaky');
    const after = await ask(sdk, 'gpt-4o');
    expect(after.response.headers.get('x-svc-target')).toBe('flaky');
    expect(after.data.choices[0]!.message.content).toBe('and stays');
  });

  it("a budget counts the cost of the model that answered, not the one asked for", async () => {
    const prices = new PriceTable();
    const USAGE = { input: 200_000, output: 0 };
    const asked = prices.cost('gpt-4o', USAGE.input, 0).brl;
    const answered = prices.cost('gpt-4o-mini', USAGE.input, 0).brl;
    // The test can only tell them apart if the model asked for costs more than the one that answered.
    expect(asked).toBeGreaterThan(answered * 2);
    const { admin, sdk } = await tenantWith({
      targets: { cheap: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-a' } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: [{ target: 'cheap', model: 'gpt-4o-mini' }] } },
    });
    // A ceiling between the two: counted at gpt-4o's price, one call would reach it.
    const policy = await call(t.url, 'POST', '/v1/policies', { token: admin, body: { name: 'spend', type: 'budget', risk: 50, rules: { max_cost_brl: (asked + answered) / 2, scope: 'tenant', period: 'day' } } });
    expect(policy.status, policy.text).toBe(200);
    primary.next({ text: 'cheap answer', usage: USAGE }, { text: 'still within budget', usage: USAGE });
    await ask(sdk, 'gpt-4o');
    const e = await lastEntry(admin);
    expect(e['model']).toBe('gpt-4o-mini');
    expect(e['cost_brl']).toBeCloseTo(answered, 9);
    const second = await ask(sdk, 'gpt-4o');
    expect(second.data.choices[0]!.message.content).toBe('still within budget');
  });
});

describe('routes: spreading, defaults and tenants', () => {
  it('a weighted route spreads 2,000 calls within ±5 % of its weights', async () => {
    const { sdk } = await tenantWith({
      targets: { a: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-a' }, b: { provider: 'openai', base_url: `${spare.url}/v1`, credential: 'key-b' } },
      models: { fast: { strategy: 'weighted', targets: [{ target: 'a', weight: 3 }, { target: 'b', weight: 1 }] } },
    });
    const counts: Record<string, number> = { a: 0, b: 0 };
    for (let i = 0; i < 2000; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => ask(sdk, 'fast')));
      for (const r of batch) counts[r.response.headers.get('x-svc-target')!]!++;
    }
    expect(counts['a']! / 2000).toBeGreaterThan(0.75 - 0.05);
    expect(counts['a']! / 2000).toBeLessThan(0.75 + 0.05);
    expect(counts['a']! + counts['b']!).toBe(2000);
  });

  it("a model with no route, and a tenant without routes, take the default route; one tenant's routes never serve another", async () => {
    const { sdk } = await tenantWith({
      targets: { a: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-a' } },
      models: { 'gpt-4o': { strategy: 'fallback', targets: ['a'] } },
    });
    const unrouted = await ask(sdk, 'gpt-4.1');
    expect(unrouted.response.headers.get('x-svc-target')).toBeNull();
    expect(spare.received[0]!.headers['authorization']).toBe('Bearer sk-default-route');
    const other = await t.tenant(`plain-${++seq}`);
    const plain = new OpenAI({ apiKey: other.operator, baseURL: `${t.url}/v1/proxy`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'plain-agent' } });
    await plain.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(primary.received).toHaveLength(0);
    expect(spare.received).toHaveLength(2);
  });

  it('no secret is in any answer, ledger entry or the raw store, whatever the route did', async () => {
    const tenants = [...t.gw.deps.store.tenants.getKeys({})] as string[];
    const entries = JSON.stringify(tenants.map((id) => t.gw.deps.ledger.list(id, { limit: 500 }).events));
    expect(tenants.length).toBeGreaterThan(5);
    for (const secret of [KEY_A, KEY_B, KEY_BAD]) expect(entries).not.toContain(secret);
    const listed = await call(t.url, 'GET', '/v1/credentials', { token: t.adminToken });
    for (const secret of [KEY_A, KEY_B, KEY_BAD]) expect(listed.text).not.toContain(secret);
    await t.gw.deps.store.root.flushed;
    for (const { path, bytes } of dataFiles(t.dataDir)) for (const secret of [KEY_A, KEY_B, KEY_BAD]) expect(bytes.includes(secret), `${path} holds a secret`).toBe(false);
    for (const secret of [KEY_A, KEY_B, KEY_BAD]) expect(logLines.join('')).not.toContain(secret);
  });
});

describe("routes on the agents' port, served by two threads", () => {
  let threaded: TestGateway;
  beforeAll(async () => {
    threaded = await startTestGateway({ credentialsKey: 'cd'.repeat(32), upstreamBaseUrl: `${spare.url}/v1`, gatewayThreads: 2, agentPort: 0, ledgerWriter: 'thread' });
  });
  afterAll(() => threaded?.close());

  it('a route changed on the gateway\'s port is acted on by every thread from the answer on', async () => {
    const tok = await threaded.tenant('threads-routes');
    expect((await call(threaded.url, 'PUT', '/v1/credentials/key-a', { token: tok.admin, body: { secret: KEY_A } })).status).toBe(201);
    const routeTo = (base: string) => ({ targets: { t: { provider: 'openai' as const, base_url: `${base}/v1`, credential: 'key-a' } }, models: { 'gpt-4o': { strategy: 'fallback' as const, targets: ['t'] } } });
    expect((await call(threaded.url, 'PUT', '/v1/routes', { token: tok.admin, body: routeTo(primary.url) })).status).toBe(200);
    /** Each call on a connection of its own: the two threads take them in turn. */
    const targetsOfFour = async (): Promise<string[]> => {
      const seen: string[] = [];
      for (let i = 0; i < 4; i++) {
        const sdk = new OpenAI({ apiKey: tok.operator, baseURL: `${threaded.agentsUrl}/v1/proxy`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'a', connection: 'close' } });
        const { response } = await ask(sdk, 'gpt-4o');
        seen.push(response.headers.get('x-svc-attempts') ?? '');
      }
      return seen;
    };
    expect(await targetsOfFour()).toEqual(['1', '1', '1', '1']);
    expect(primary.received).toHaveLength(4);
    expect((await call(threaded.url, 'PUT', '/v1/routes', { token: tok.admin, body: routeTo(spare.url) })).status).toBe(200);
    await targetsOfFour();
    expect(primary.received).toHaveLength(4);
    expect(spare.received).toHaveLength(4);
    expect(spare.received.every((r) => r.headers['authorization'] === `Bearer ${KEY_A}`)).toBe(true);
  });
});

describe('routes in the Anthropic and Gemini formats, through their official SDKs', () => {
  it('an Anthropic call whose first target refuses falls back to the next, asked for the model its route names, with its key in x-api-key', async () => {
    const tok = await tenantWith({
      targets: { down: { provider: 'anthropic', base_url: dead.replace(/\/v1$/, '') }, up: { provider: 'anthropic', base_url: primary.url, credential: 'key-b' } },
      models: { 'claude-sonnet-4-5': { strategy: 'fallback', targets: ['down', { target: 'up', model: 'claude-haiku-4-5' }] } },
      retry: FAST,
    });
    primary.next({ text: 'routed claude' });
    const sdk = new Anthropic({ apiKey: tok.operator, baseURL: `${t.url}/v1/proxy/anthropic`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'claude-agent' } });
    const { data, response } = await sdk.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(data.content[0]).toMatchObject({ type: 'text', text: 'routed claude' });
    expect(response.headers.get('x-svc-target')).toBe('up');
    expect(primary.received[0]!.headers['x-api-key']).toBe(KEY_B);
    expect(primary.received[0]!.headers['anthropic-version']).toBeTruthy();
    expect(primary.received[0]!.body!['model']).toBe('claude-haiku-4-5');
  });

  it('an Anthropic call for a model routed only to OpenAI targets is refused 400 (no translation that way), nothing sent', async () => {
    const tok = await tenantWith({ targets: { o: { provider: 'openai', base_url: `${primary.url}/v1`, credential: 'key-a' } }, models: { 'claude-sonnet-4-5': { strategy: 'fallback', targets: ['o'] } } });
    const sdk = new Anthropic({ apiKey: tok.operator, baseURL: `${t.url}/v1/proxy/anthropic`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'claude-agent' } });
    const err = await sdk.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as Error).message).toContain('translated only from OpenAI chat completions');
    expect(primary.received).toHaveLength(0);
  });

  it('a Gemini call retried after a 503 goes to the model its route names, in the path; its body never gets a model field', async () => {
    const tok = await tenantWith({
      targets: { g: { provider: 'gemini', base_url: primary.url, credential: 'key-a' } },
      models: { 'gemini-2.0-flash': { strategy: 'fallback', targets: [{ target: 'g', model: 'gemini-2.5-flash' }] } },
      retry: FAST,
    });
    primary.next({ status: 503 }, { text: 'routed gemini' });
    const sdk = new GoogleGenAI({ apiKey: tok.operator, httpOptions: { baseUrl: `${t.url}/v1/proxy/gemini`, headers: { 'x-svc-agent-id': 'gemini-agent' } } });
    const answer = await sdk.models.generateContent({ model: 'gemini-2.0-flash', contents: 'hi' });
    expect(answer.text).toBe('routed gemini');
    expect(primary.received).toHaveLength(2);
    for (const r of primary.received) expect(r.path).toMatch(/^\/v1(beta)?\/models\/gemini-2\.5-flash:generateContent$/);
    expect(primary.received[1]!.headers['x-goog-api-key']).toBe(KEY_A);
    expect(primary.received[1]!.body!['model']).toBeUndefined();
  });
});
