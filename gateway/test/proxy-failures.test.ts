import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import type { MockUpstream } from './helpers/mock-upstream.js';
import { closeGatewayWithMock, startGatewayWithMock } from './helpers/gateway-with-mock.js';

let t: TestGateway;
let mock: MockUpstream;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;

const sdk = (token: string, agent = 'fail-agent') =>
  new OpenAI({ apiKey: token, baseURL: `${t.url}/v1/proxy`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': agent } });
const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hello' }] };

beforeAll(async () => {
  ({ t, mock } = await startGatewayWithMock({ upstreamApiKey: 'sk-sidecar-held' }));
  tok = await t.tenant('fail');
});
afterAll(() => closeGatewayWithMock({ t, mock }));
beforeEach(() => mock.reset());

function verdictHeadersOf(h: Record<string, string>) {
  return { verdict: h['x-svc-verdict'], trace: h['x-svc-trace-id'], policy: h['x-svc-policy'], latency: h['x-svc-latency-ms'] };
}

describe('refusals carry the verdict headers too', () => {
  it('missing x-svc-agent-id → 400; wrong PAT → 401; viewer → 403; 10 MB+ body → 413', async () => {
    const noAgent = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, body: chat });
    expectEnvelope(noAgent, 400, 'invalid_request');
    expect(noAgent.body.error.message).toContain('x-svc-agent-id');
    expect(verdictHeadersOf(noAgent.headers)).toMatchObject({ verdict: 'DENIED', trace: expect.any(String), latency: expect.stringMatching(/^\d+$/) });

    const longAgent = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, headers: { 'x-svc-agent-id': 'a'.repeat(300) }, body: chat });
    expect(expectEnvelope(longAgent, 400, 'invalid_request').message).toContain('x-svc-agent-id');

    const wrong = await sdk('adu_pat_definitelywrong').chat.completions.create(chat).then(() => null, (e: unknown) => e);
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((wrong as InstanceType<typeof OpenAI.APIError>).headers?.get('x-svc-verdict')).toBe('DENIED');

    const viewer = await sdk(tok.viewer).chat.completions.create(chat).then(() => null, (e: unknown) => e);
    expect(viewer).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((viewer as InstanceType<typeof OpenAI.APIError>).type).toBe('permission_denied');

    const huge = await call(t.url, 'POST', '/v1/proxy/chat/completions', {
      token: tok.operator,
      headers: { 'x-svc-agent-id': 'a', 'content-type': 'application/json' },
      rawBody: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(10 * 1024 * 1024 + 10) }] }),
    });
    expectEnvelope(huge, 413, 'payload_too_large');
    expect(huge.headers['x-svc-verdict']).toBe('DENIED');
    expect(mock.received).toHaveLength(0);
  });

  it('malformed provider requests → 400 before the upstream is contacted', async () => {
    for (const body of [{ messages: [{ role: 'user', content: 'x' }] }, { model: 'm' }, { model: 'm', messages: [] }, { model: 'm', messages: ['x'] }, { model: 'm', messages: [{ role: 'user', content: 'x' }], stream: 'yes' }, [1, 2]]) {
      const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, headers: { 'x-svc-agent-id': 'a' }, body });
      expectEnvelope(r, 400, 'invalid_request');
    }
    const bad = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, headers: { 'x-svc-agent-id': 'a', 'content-type': 'application/json' }, rawBody: '{"model":' });
    expectEnvelope(bad, 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'POST', '/v1/proxy/images/generations', { token: tok.operator, headers: { 'x-svc-agent-id': 'a' }, body: {} }), 404, 'not_found');
    expect(mock.received).toHaveLength(0);
  });

  it('uses the sidecar-held provider key when the caller sends none', async () => {
    await sdk(tok.operator).chat.completions.create(chat);
    expect(mock.received[0]!.headers['authorization']).toBe('Bearer sk-sidecar-held');
  });
});

describe('upstream trouble', () => {
  it('upstream 4xx/5xx answers pass through unchanged, with our headers', async () => {
    const providerError = { error: { message: 'Rate limit reached for gpt-4o-mini', type: 'requests', code: 'rate_limit_exceeded' } };
    mock.next({ status: 429, json: providerError });
    const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, headers: { 'x-svc-agent-id': 'a' }, body: chat });
    expect(r.status).toBe(429);
    expect(r.body).toEqual(providerError);
    expect(r.headers['x-svc-verdict']).toBe('ALLOWED');
    mock.next({ status: 500, json: { error: { message: 'boom', type: 'server_error' } } });
    const five = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, headers: { 'x-svc-agent-id': 'a' }, body: chat });
    expect(five.status).toBe(500);
    expect(five.body.error.message).toBe('boom');
  });

  it('upstream down → 503 upstream_unavailable', async () => {
    const down = await startTestGateway({ upstreamBaseUrl: 'http://127.0.0.1:1/v1' });
    try {
      const r = await call(down.url, 'POST', '/v1/proxy/chat/completions', { token: down.adminToken, headers: { 'x-svc-agent-id': 'a' }, body: chat });
      expectEnvelope(r, 503, 'upstream_unavailable');
      expect(r.headers['x-svc-verdict']).toBe('ALLOWED');
    } finally {
      await down.close();
    }
  });

  it('upstream too slow → 503 within the configured time-out', async () => {
    const slow = await startTestGateway({ upstreamBaseUrl: mock.url, upstreamTimeoutMs: 200 });
    try {
      mock.next({ delayMs: 2000 });
      const r = await call(slow.url, 'POST', '/v1/proxy/chat/completions', { token: slow.adminToken, headers: { 'x-svc-agent-id': 'a' }, body: chat });
      expectEnvelope(r, 503, 'upstream_unavailable');
    } finally {
      await slow.close();
    }
  });

  it('upstream killed mid-stream: the client gets what was sent, then an error, and the ledger says so', async () => {
    const k = await t.tenant('fail-killed');
    mock.next({ chunks: ['one ', 'two ', 'three ', 'four'], dropAfterChunks: 2, chunkDelayMs: 20 });
    const stream = await sdk(k.operator, 'killed-agent').chat.completions.create({ ...chat, stream: true });
    let text = '';
    const err = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })().then(() => null, (e: unknown) => e);
    expect(text).toBe('one two ');
    expect(err).toBeInstanceOf(OpenAI.APIError);
    await expect.poll(() => t.gw.deps.ledger.list('fail-killed', { limit: 5 }).events.length, { timeout: 3000 }).toBe(1);
    expect(t.gw.deps.ledger.list('fail-killed', { limit: 5 }).events[0]!.payload).toMatchObject({ outcome: 'upstream_aborted', stream: true });
  });
});

describe('client abort and concurrency', () => {
  it('a client that disconnects mid-stream aborts the upstream request', async () => {
    mock.next({ chunks: Array.from({ length: 200 }, (_, i) => `w${i} `), chunkDelayMs: 20 });
    const ac = new AbortController();
    const res = await request(`${t.url}/v1/proxy/chat/completions`, {
      method: 'POST',
      signal: ac.signal,
      headers: { authorization: `Bearer ${tok.operator}`, 'x-svc-agent-id': 'abort-agent', 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, stream: true }),
    });
    expect(res.statusCode).toBe(200);
    for await (const _ of res.body) {
      ac.abort();
      break;
    }
    await expect.poll(() => mock.clientAborts, { timeout: 5000 }).toBe(1);
  });

  it('100 concurrent streams all complete, each with its own content', async () => {
    const clients = Array.from({ length: 100 }, (_, i) => i);
    mock.setDefault({ chunks: ['al', 'pha ', 'be', 'ta'], chunkDelayMs: 5 });
    const texts = await Promise.all(
      clients.map(async (i) => {
        const stream = await sdk(tok.operator, `agent-${i}`).chat.completions.create({ ...chat, stream: true });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
        return text;
      }),
    );
    expect(texts.every((s) => s === 'alpha beta')).toBe(true);
    expect(mock.received).toHaveLength(100);
  });
});

describe('budgets', () => {
  it('an agent over its BRL budget is denied; the cost is recorded from usage', async () => {
    const b = await t.tenant('fail-budget');
    const pol = await call(t.url, 'POST', '/v1/policies', { token: b.admin, body: { name: 'budget', type: 'budget', risk: 50, rules: { max_cost_brl: 0.05, period: 'day' } } });
    // gpt-4o: 1,000 prompt tokens cost 0.01375 BRL, 1,000 completion tokens 0.055: one call spends 0.06875.
    mock.next({ usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
    const first = await sdk(b.operator, 'spender').chat.completions.create({ ...chat, model: 'gpt-4o' });
    expect(first.choices[0]!.message.content).toBeTruthy();
    const second = await sdk(b.operator, 'spender').chat.completions.create({ ...chat, model: 'gpt-4o' }).then(() => null, (e: unknown) => e);
    expect(second).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((second as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ rule: pol.body.id });
    // Another agent of the same tenant still has its budget.
    mock.next({ usage: { prompt_tokens: 10, completion_tokens: 10 } });
    await expect(sdk(b.operator, 'frugal').chat.completions.create(chat)).resolves.toBeTruthy();
    expect(mock.received).toHaveLength(2);
    // The cost is recorded as the budget.cost_brl metric, per agent.
    const now = Math.floor(Date.now() / 1000);
    await expect
      .poll(async () => (await call(t.url, 'GET', `/v1/telemetry/query/stats?metric=budget.cost_brl&from=${now - 60}&to=${now + 60}&agentId=spender`, { token: b.viewer })).body.avg, { timeout: 3000 })
      .toBeCloseTo(0.06875, 6);
    const sumAll = async () => {
      const all = await call(t.url, 'GET', `/v1/telemetry/query/stats?metric=budget.cost_brl&from=${now - 60}&to=${now + 60}`, { token: b.viewer });
      expect(all.body.metric).toBe('budget.cost_brl');
      return all.body.series.reduce((a: number, x: { value: number }) => a + x.value, 0);
    };
    await expect.poll(sumAll, { timeout: 3000 }).toBeCloseTo(0.06875 + (10 * 0.000825 + 10 * 0.0033) / 1000, 6);
    expectEnvelope(await call(t.url, 'GET', '/v1/telemetry/query/stats?metric=budget.cost_brl', { token: b.viewer }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'GET', `/v1/telemetry/query/stats?metric=cpu&from=1&to=2`, { token: b.viewer }), 400, 'invalid_request');
    const stranger = await t.tenant('fail-budget-stranger');
    const other = await call(t.url, 'GET', `/v1/telemetry/query/stats?metric=budget.cost_brl&from=${now - 60}&to=${now + 60}`, { token: stranger.viewer });
    expect(other.body).toMatchObject({ series: [], avg: 0 });
    // Streams are metered too, from the usage chunk we ask for.
    const c = await t.tenant('fail-budget-stream');
    await call(t.url, 'POST', '/v1/policies', { token: c.admin, body: { name: 'budget', type: 'budget', risk: 50, rules: { max_cost_brl: 0.05, period: 'day' } } });
    mock.next({ chunks: ['x'], usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
    const s = await sdk(c.operator, 'streamer').chat.completions.create({ ...chat, model: 'gpt-4o', stream: true });
    for await (const _ of s) void _;
    const again = await sdk(c.operator, 'streamer').chat.completions.create({ ...chat, model: 'gpt-4o' }).then(() => null, (e: unknown) => e);
    expect(again).toBeInstanceOf(OpenAI.PermissionDeniedError);
  });
});

describe('the audit trail', () => {
  it('each call is a decision and a ledger entry carrying the hash of what the client received', async () => {
    const a = await t.tenant('fail-audit');
    mock.next({ chunks: ['hash ', 'me'] });
    const res = await request(`${t.url}/v1/proxy/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.operator}`, 'x-svc-agent-id': 'audited', 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, stream: true }),
    });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    const decisionId = res.headers['x-svc-trace-id'] as string;
    await expect.poll(() => t.gw.deps.ledger.list('fail-audit', { limit: 10 }).events.length, { timeout: 3000 }).toBe(1);
    const entry = t.gw.deps.ledger.list('fail-audit', { limit: 10 }).events[0]!;
    expect(entry.event_type).toBe('proxy.chat.completions');
    expect(entry.metadata).toMatchObject({ agent_id: 'audited', decision_id: decisionId });
    expect(entry.payload).toMatchObject({ outcome: 'completed', stream: true, output_sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(entry.decision).toMatchObject({ decision_id: decisionId, execution_status: 'ALLOW' });
    const d = await call(t.url, 'GET', `/admin/decisions/${decisionId}`, { token: a.viewer });
    expect(d.body).toMatchObject({ event_type: 'proxy.chat.completions', agent_id: 'audited', execution_status: 'ALLOW' });
  });

  it('a streamed call records its time by stage; a call refused by a policy records its governance time too', async () => {
    const a = await t.tenant('fail-stages');
    mock.next({ chunks: ['time ', 'me'] });
    const res = await request(`${t.url}/v1/proxy/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.operator}`, 'x-svc-agent-id': 'timed', 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, stream: true }),
    });
    await res.body.arrayBuffer();
    await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: { name: 'no wires', type: 'content_filter', risk: 40, rules: { patterns: ['wire money'], action: 'DENY' } } });
    const refused = await request(`${t.url}/v1/proxy/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.operator}`, 'x-svc-agent-id': 'timed', 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, messages: [{ role: 'user', content: 'please wire money now' }] }),
    });
    await refused.body.arrayBuffer();
    expect(refused.statusCode).toBe(403);
    await expect.poll(() => t.gw.deps.ledger.list('fail-stages', { limit: 10 }).events.filter((e) => e.event_type.startsWith('proxy.')).length, { timeout: 3000 }).toBe(2);
    const [streamed, blocked] = t.gw.deps.ledger.list('fail-stages', { limit: 10 }).events.filter((e) => e.event_type.startsWith('proxy.')) as { payload: Record<string, unknown> }[];
    type Stages = { answer: number; policies: number; redaction: number; request: number; upstream: number };
    const s = streamed!.payload['stages_us'] as Stages;
    expect(s.upstream).toBeGreaterThan(0);
    expect(s.request + s.answer).toBeGreaterThanOrEqual((streamed!.payload['governance_us'] as number) - 1);
    expect(s.request + s.answer).toBeLessThanOrEqual((streamed!.payload['governance_us'] as number) + 1);
    // Refused before the upstream: all of its time was governance, none of it the provider's, and its headers say so.
    const b = blocked!.payload['stages_us'] as Stages;
    expect(blocked!.payload['outcome']).toBe('blocked');
    expect(b.request).toBeGreaterThan(0);
    expect(b.policies).toBeGreaterThan(0);
    expect(b).toMatchObject({ upstream: 0, answer: 0 });
    expect(blocked!.payload['governance_us']).toBe(b.request);
    expect(refused.headers['x-svc-latency-us']).toBe(String(b.request));
  });

  it('the hallucination shield flags a cited URL and figure that the request never gave, without blocking', async () => {
    const h = await t.tenant('fail-shield');
    await call(t.url, 'POST', '/v1/policies', { token: h.admin, body: { name: 'shield', type: 'hallucination_shield', risk: 30, rules: {} } });
    mock.next({ content: 'According to https://journal.example.com/study-991 revenue grew 37.5% last year.' });
    const { data, response } = await sdk(h.operator).chat.completions.create({ ...chat, messages: [{ role: 'user', content: 'How did revenue do?' }] }).withResponse();
    expect(data.choices[0]!.message.content).toContain('journal.example.com');
    expect(response.headers.get('x-svc-verdict')).toBe('ALLOWED');
    const d = await call(t.url, 'GET', `/admin/decisions/${response.headers.get('x-svc-trace-id')}`, { token: h.viewer });
    expect(d.body.risk_score).toBe(30);
    expect(d.body.triggered[0]).toMatchObject({ type: 'hallucination_shield', action: 'FLAG' });
    expect(d.body.triggered[0].reason).toContain('https://journal.example.com/study-991');
    expect(d.body.triggered[0].reason).toContain('37.5%');

    mock.next({ content: 'Revenue grew 37.5% as your report says.' });
    const ok = await sdk(h.operator).chat.completions.create({ ...chat, messages: [{ role: 'user', content: 'My report says revenue grew 37.5%.' }] }).withResponse();
    const d2 = await call(t.url, 'GET', `/admin/decisions/${ok.response.headers.get('x-svc-trace-id')}`, { token: h.viewer });
    expect(d2.body.triggered).toEqual([]);
  });

  it('the hallucination shield checks tool-call arguments against the declared schema', async () => {
    const h = await t.tenant('fail-tools');
    await call(t.url, 'POST', '/v1/policies', { token: h.admin, body: { name: 'shield', type: 'hallucination_shield', risk: 40, rules: { action: 'DENY' } } });
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } }];
    mock.next({ toolCalls: [{ name: 'get_weather', arguments: '{"city":"Lisbon"}' }] });
    const good = await sdk(h.operator).chat.completions.create({ ...chat, tools });
    expect(good.choices[0]!.message.tool_calls![0]!.type).toBe('function');
    for (const bad of [{ name: 'get_weather', arguments: '{"city":' }, { name: 'get_weather', arguments: '{"town":"Lisbon"}' }, { name: 'launch_rockets', arguments: '{}' }]) {
      mock.next({ toolCalls: [bad] });
      const e = await sdk(h.operator).chat.completions.create({ ...chat, tools }).then(() => null, (x: unknown) => x);
      expect(e).toBeInstanceOf(OpenAI.PermissionDeniedError);
    }
  });
});
