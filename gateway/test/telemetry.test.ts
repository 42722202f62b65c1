import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { call, expectEnvelope } from './helpers/start-test-gateway.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';

let g: GatewayWithMock;
let n = 0;

beforeAll(async () => {
  g = await startGatewayWithMock();
});
afterAll(() => closeGatewayWithMock(g));

async function tenant() {
  const id = `tel-${++n}`;
  return { id, ...(await g.t.tenant(id)) };
}

const ingest = (token: string, body: unknown) => call(g.t.url, 'POST', '/v1/telemetry/ingest', { token, body });
const now = () => Math.floor(Date.now() / 1000);

describe('status and ingest', () => {
  it('status: providers DISABLED when unset, sanitization pii-redacted; ingest answers ingested with the trace id and no providers', async () => {
    const tok = await tenant();
    const s = await call(g.t.url, 'GET', '/v1/telemetry/status', { token: tok.viewer });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ mode: 'sidecar', providers: { logs_provider: 'DISABLED', errors_provider: 'DISABLED' }, sanitization: 'pii-redacted' });
    expect(typeof s.body.latency_ms).toBe('number');
    const r = await ingest(tok.operator, { traceId: 'trace-1', tenantId: tok.id, agentId: 'bot', log: { level: 'info', message: 'started', attributes: { step: 1 } } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ingested', traceId: 'trace-1', providers: [] });
    expectEnvelope(await ingest(tok.viewer, { log: { level: 'info', message: 'x' } }), 403, 'permission_denied');
  });

  it('logs: newest first, redacted, filtered by agent, paginated with a cursor and a total; another tenant sees none', async () => {
    const tok = await tenant();
    for (let i = 0; i < 5; i++) await ingest(tok.operator, { agentId: i % 2 ? 'odd' : 'even', log: { level: 'info', message: `step ${i} for ana.souza@example.com` } });
    const all = await call(g.t.url, 'GET', '/v1/telemetry/query/logs?limit=2', { token: tok.viewer });
    expect(all.body.total).toBe(5);
    expect(all.body.data.map((l: { message: string }) => l.message)).toEqual(['step 4 for [REDACTED:EMAIL]', 'step 3 for [REDACTED:EMAIL]']);
    for (const k of ['id', 'timestamp', 'level', 'message', 'agentId', 'traceId']) expect(all.body.data[0]).toHaveProperty(k);
    const next = await call(g.t.url, 'GET', `/v1/telemetry/query/logs?limit=2&cursor=${all.body.cursor}`, { token: tok.viewer });
    expect(next.body.data.map((l: { message: string }) => l.message)).toEqual(['step 2 for [REDACTED:EMAIL]', 'step 1 for [REDACTED:EMAIL]']);
    const odd = await call(g.t.url, 'GET', '/v1/telemetry/query/logs?agentId=odd', { token: tok.viewer });
    expect(odd.body.total).toBe(2);
    expect(odd.body.data.every((l: { agentId: string }) => l.agentId === 'odd')).toBe(true);
    const other = await tenant();
    expect((await call(g.t.url, 'GET', '/v1/telemetry/query/logs', { token: other.viewer })).body).toMatchObject({ data: [], total: 0 });
    expectEnvelope(await call(g.t.url, 'GET', `/v1/telemetry/query/logs?tenantId=${tok.id}`, { token: other.viewer }), 403, 'permission_denied');
  });

  it('errors: grouped into issues by fingerprint with count, firstSeen and lastSeen; events newest first with their context', async () => {
    const tok = await tenant();
    for (const order of [17, 23, 99]) await ingest(tok.operator, { agentId: 'payer', traceId: `t${order}`, log: { level: 'error', message: `payment for order ${order} failed` } });
    await ingest(tok.operator, { agentId: 'payer', log: { level: 'fatal', message: 'database unreachable' } });
    await ingest(tok.operator, { agentId: 'payer', log: { level: 'info', message: 'payment for order 5 failed' } });
    const issues = await call(g.t.url, 'GET', '/v1/telemetry/query/errors/issues', { token: tok.viewer });
    expect(issues.status).toBe(200);
    expect(issues.body.total).toBe(2);
    const payment = issues.body.data.find((i: { title: string }) => i.title.startsWith('payment'));
    expect(payment).toMatchObject({ level: 'error', count: 3, agentId: 'payer', title: 'payment for order 17 failed' });
    expect(payment.firstSeen <= payment.lastSeen).toBe(true);
    expect(issues.body.data[0].title).toBe('database unreachable');
    const events = await call(g.t.url, 'GET', '/v1/telemetry/query/errors/events?limit=2', { token: tok.viewer });
    expect(events.body.data).toHaveLength(2);
    expect(events.body.data[0]).toMatchObject({ message: 'database unreachable', context: { agentId: 'payer', ruleId: '' } });
    expect(events.body.data[1]).toMatchObject({ issueId: payment.id, message: 'payment for order 99 failed', context: { agentId: 'payer', traceId: 't99' } });
    const ofIssue = await call(g.t.url, 'GET', `/v1/telemetry/query/errors/events?issueId=${payment.id}`, { token: tok.viewer });
    expect(ofIssue.body.data).toHaveLength(3);
    const other = await tenant();
    expect((await call(g.t.url, 'GET', '/v1/telemetry/query/errors/issues', { token: other.viewer })).body.total).toBe(0);
    expectEnvelope(await call(g.t.url, 'GET', `/v1/telemetry/query/errors/events?tenant_id=${tok.id}`, { token: other.viewer }), 403, 'permission_denied');
  });
});

describe('stats', () => {
  it('records all five metrics for real: count, blocked, latency with avg/p95/p99, cost; heartbeat misses elsewhere', async () => {
    const tok = await tenant();
    await call(g.t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'no', type: 'content_filter', risk: 50, rules: { patterns: ['forbidden'] } } });
    for (const text of ['fine', 'fine too', 'forbidden thing']) {
      await call(g.t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'a1', action: { type: 'tool_call', payload: { text } } } });
    }
    const proxied = await call(g.t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, headers: { 'x-svc-agent-id': 'a2' }, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } });
    expect(proxied.status).toBe(200);
    const stats = async (metric: string, agent = '') => (await call(g.t.url, 'GET', `/v1/telemetry/query/stats?metric=${metric}&from=${now() - 60}&to=${now() + 1}${agent ? `&agentId=${agent}` : ''}`, { token: tok.viewer })).body;
    const sum = (s: { series: { value: number }[] }) => s.series.reduce((a, p) => a + p.value, 0);
    expect(sum(await stats('decision.count'))).toBe(4);
    expect(sum(await stats('decision.count', 'a1'))).toBe(3);
    expect(sum(await stats('decision.blocked_count'))).toBe(1);
    const latency = await stats('decision.latency_ms');
    expect(latency.series.length).toBeGreaterThan(0);
    expect(latency.avg).toBeGreaterThan(0);
    expect(latency.p99).toBeGreaterThanOrEqual(latency.p95);
    expect(latency.p95).toBeGreaterThan(0);
    const cost = await stats('budget.cost_brl', 'a2');
    expect(sum(cost)).toBeCloseTo((12 * 0.000825 + 7 * 0.0033) / 1000, 10);
    expect(await stats('heartbeat.missed_count')).toMatchObject({ metric: 'heartbeat.missed_count', series: [] });
  });
});

describe('bad input: the documented 400/413, nothing written', () => {
  it('refuses unknown metrics, from > to, windows past the retention, non-integer limits, 3 MB bodies and control characters', async () => {
    const tok = await tenant();
    const q = (path: string) => call(g.t.url, 'GET', path, { token: tok.viewer });
    expectEnvelope(await q(`/v1/telemetry/query/stats?metric=cpu.load&from=${now() - 10}&to=${now()}`), 400, 'invalid_request');
    expectEnvelope(await q(`/v1/telemetry/query/stats?metric=decision.count&from=${now()}&to=${now() - 10}`), 400, 'invalid_request');
    expectEnvelope(await q(`/v1/telemetry/query/stats?metric=decision.count&from=${now() - 8 * 86400}&to=${now()}`), 400, 'invalid_request');
    expectEnvelope(await q(`/v1/telemetry/query/stats?metric=decision.count&from=abc&to=${now()}`), 400, 'invalid_request');
    expectEnvelope(await q(`/v1/telemetry/query/stats?metric=decision.count&from=${now() - 10}&to=${now()}&agentId=a%01b`), 400, 'invalid_request');
    for (const path of ['/v1/telemetry/query/logs', '/v1/telemetry/query/errors/issues', '/v1/telemetry/query/errors/events']) {
      for (const limit of ['1.5', 'abc', '-1', '0', '100000']) expectEnvelope(await q(`${path}?limit=${limit}`), 400, 'invalid_request');
    }
    expectEnvelope(await q('/v1/telemetry/query/logs?agentId=a%00b'), 400, 'invalid_request');
    expectEnvelope(await q('/v1/telemetry/query/errors/events?issueId=nope'), 400, 'invalid_request');

    const big = await call(g.t.url, 'POST', '/v1/telemetry/ingest', { token: tok.operator, body: { agentId: 'a', log: { level: 'error', message: 'x'.repeat(3 * 1024 * 1024) } } });
    expectEnvelope(big, 413, 'payload_too_large');
    for (const body of [
      { agentId: 'a\u0000b', log: { level: 'error', message: 'x' } },
      { traceId: 't\nx', log: { level: 'error', message: 'x' } },
      { log: { level: 'loud', message: 'x' } },
      { log: { level: 'error' } },
      { log: { level: 'error', message: 'x' }, extra: true },
      { agentId: 'a', log: 'x' },
    ]) expectEnvelope(await ingest(tok.operator, body), 400, 'invalid_request');
    expectEnvelope(await ingest(tok.operator, { tenantId: 'someone-else', log: { level: 'error', message: 'x' } }), 403, 'permission_denied');
    expect((await q('/v1/telemetry/query/logs')).body.total).toBe(0);
    expect((await q('/v1/telemetry/query/errors/issues')).body.total).toBe(0);
  });
});

describe('retention', () => {
  it('samples, logs and error events past the retention window are pruned', async () => {
    const tok = await tenant();
    await ingest(tok.operator, { agentId: 'old', log: { level: 'error', message: 'kept a week' } });
    await call(g.t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'old', action: { type: 'x' } } });
    // Made on a request thread, perhaps: its telemetry reaches this thread's metric store within a turn.
    await g.t.gw.threadsCaughtUp();
    await g.t.gw.deps.metrics.flush();
    expect((await call(g.t.url, 'GET', '/v1/telemetry/query/logs', { token: tok.viewer })).body.total).toBe(1);
    // The background pass, run as if eight days had passed.
    const removed = await g.t.gw.deps.telemetry.prune(Date.now() + 8 * 86_400_000);
    expect(removed).toBeGreaterThan(0);
    expect((await call(g.t.url, 'GET', '/v1/telemetry/query/logs', { token: tok.viewer })).body.total).toBe(0);
    expect((await call(g.t.url, 'GET', '/v1/telemetry/query/errors/issues', { token: tok.viewer })).body.total).toBe(0);
    const s = await call(g.t.url, 'GET', `/v1/telemetry/query/stats?metric=decision.count&from=${now() - 60}&to=${now() + 1}`, { token: tok.viewer });
    expect(s.body.series).toEqual([]);
  });
});

describe('/v1/telemetry/metrics', () => {
  it('is Prometheus text exposition that a Prometheus parser reads: latency histogram, verdicts, blocks by rule, upstream errors, ledger, process', async () => {
    const tok = await tenant();
    await call(g.t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'no', type: 'content_filter', risk: 50, rules: { patterns: ['forbidden'] } } });
    await call(g.t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'm', action: { type: 'forbidden' } } });
    g.mock.next({ status: 500 });
    await call(g.t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, headers: { 'x-svc-agent-id': 'm' }, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } });
    const r = await call(g.t.url, 'GET', '/v1/telemetry/metrics', { token: tok.viewer });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toContain('text/plain');
    const families = new Map(parsePrometheusTextFormat(r.text).map((f) => [f.name, f]));
    const duration = families.get('aduana_http_request_duration_seconds');
    expect(duration?.type).toBe('HISTOGRAM');
    // The policy, the decision and the proxied call were answered by the gateway's server before this scrape.
    // (The parser flattens a labelled histogram's series into one: read the gateway's series from the text.)
    const sample = (line: RegExp) => Number(line.exec(r.text)?.[1]);
    const count = sample(/^aduana_http_request_duration_seconds_count\{server="gateway"\} (\S+)$/m);
    expect(count).toBeGreaterThanOrEqual(3);
    expect(sample(/^aduana_http_request_duration_seconds_bucket\{le="\+Inf",server="gateway"\} (\S+)$/m)).toBe(count);
    expect(sample(/^aduana_http_request_duration_seconds_sum\{server="gateway"\} (\S+)$/m)).toBeGreaterThan(0);
    const decisions = families.get('aduana_decisions_total');
    expect(decisions?.type).toBe('COUNTER');
    expect(Number(decisions?.metrics.find((m) => m.labels?.['verdict'] === 'DENY')?.value)).toBeGreaterThanOrEqual(1);
    const blocks = families.get('aduana_blocks_total');
    expect(blocks?.metrics.some((m) => m.labels?.['rule'] && Number(m.value) >= 1)).toBe(true);
    expect(Number(families.get('aduana_upstream_errors_total')?.metrics.find((m) => m.labels?.['outcome'] === 'upstream_error')?.value)).toBeGreaterThanOrEqual(1);
    // The tenant's own ledger (its token sees no other tenant's series): its entries are group-committed within ms.
    const ledgerEntries = async () => {
      const again = await call(g.t.url, 'GET', '/v1/telemetry/metrics', { token: tok.viewer });
      return Number(parsePrometheusTextFormat(again.text).find((f) => f.name === 'aduana_ledger_entries')?.metrics.find((m) => m.labels?.['tenant'] === tok.id)?.value);
    };
    await expect.poll(ledgerEntries, { timeout: 3000 }).toBeGreaterThan(0);
    expect(families.get('aduana_ledger_append_seconds')?.type).toBe('HISTOGRAM');
    expect(families.has('aduana_process_cpu_user_seconds_total')).toBe(true);
    expect(families.has('aduana_nodejs_heap_size_used_bytes')).toBe(true);
    expectEnvelope(await call(g.t.url, 'GET', '/v1/telemetry/metrics'), 401, 'authentication_error');
  });
});
