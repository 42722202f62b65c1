import { createHash } from 'node:crypto';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type CallResult } from './helpers/start-test-gateway.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';

// GET /v1/telemetry/metrics (docs/telemetry.md, "Prometheus"): a tenant's token sees its own tenant's series and the
// process-wide ones; the operator's scrape credential (METRICS_SCRAPE_TOKEN) sees every tenant's.
const SCRAPE = 'scrape-0123456789abcdef0123456789abcdef';

let g: GatewayWithMock;
type Tenant = { id: string; policy: string; admin: string; operator: string; viewer: string };
let alpha: Tenant;
let bravo: Tenant;

/** A tenant with a content filter, one decision it denies, one it allows, and a proxied call the upstream fails. */
async function tenantWithDecisions(id: string, word: string): Promise<Tenant> {
  const tok = await g.t.tenant(id);
  const p = await call(g.t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: `no ${word}`, type: 'content_filter', risk: 50, rules: { patterns: [word] } } });
  expect(p.status).toBe(200);
  const decide = (text: string) => call(g.t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: `${id}-bot`, action: { type: 'tool_call', payload: { text } } } });
  expect((await decide(`please ${word} now`)).body.envelope.execution_status).toBe('DENY');
  expect((await decide('hello')).body.envelope.execution_status).toBe('ALLOW');
  g.mock.next({ status: 500 });
  await call(g.t.url, 'POST', '/v1/proxy/chat/completions', {
    token: tok.operator,
    headers: { 'x-svc-agent-id': `${id}-bot` },
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
  });
  return { id, policy: p.body.id as string, ...tok };
}

beforeAll(async () => {
  g = await startGatewayWithMock({ metricsScrapeToken: SCRAPE });
  alpha = await tenantWithDecisions('ms-alpha', 'launch');
  bravo = await tenantWithDecisions('ms-bravo', 'exfiltrate');
});
afterAll(() => closeGatewayWithMock(g));

const scrape = (token?: string): Promise<CallResult> => call(g.t.url, 'GET', '/v1/telemetry/metrics', token === undefined ? {} : { token });

/** Every sample's labels, by metric family (histograms' buckets included, as the parser gives them). */
function samples(text: string): Map<string, Record<string, string>[]> {
  return new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f.metrics.map((m) => m.labels ?? {})]));
}

/** The value of a family's sample whose labels include `labels`. */
function value(text: string, family: string, labels: Record<string, string>): number {
  const f = parsePrometheusTextFormat(text).find((x) => x.name === family);
  const m = f?.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
  return Number(m?.value ?? NaN);
}

describe('a tenant token sees its own tenant only', () => {
  for (const [who, other] of [
    ['alpha', 'bravo'],
    ['bravo', 'alpha'],
  ] as const) {
    it(`${who}'s viewer: no series names ${other} or its policies; its own decisions, blocks, upstream errors, ledger and the process-wide series are there`, async () => {
      const me = who === 'alpha' ? alpha : bravo;
      const them = other === 'alpha' ? alpha : bravo;
      const r = await scrape(me.viewer);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(them.id);
      expect(r.text).not.toContain(them.policy);
      for (const [, series] of samples(r.text)) for (const labels of series) if ('tenant' in labels) expect(labels['tenant']).toBe(me.id);
      expect(value(r.text, 'aduana_decisions_total', { tenant: me.id, verdict: 'DENY' })).toBe(1);
      // The allowed decision, and the proxied call (allowed, then failed by the upstream).
      expect(value(r.text, 'aduana_decisions_total', { tenant: me.id, verdict: 'ALLOW' })).toBe(2);
      expect(value(r.text, 'aduana_blocks_total', { tenant: me.id, rule: me.policy })).toBe(1);
      expect(value(r.text, 'aduana_upstream_errors_total', { tenant: me.id, outcome: 'upstream_error' })).toBe(1);
      // Two decisions and the proxied call, group-committed within milliseconds of their answers.
      await expect.poll(async () => value((await scrape(me.viewer)).text, 'aduana_ledger_entries', { tenant: me.id }), { timeout: 3000 }).toBeGreaterThanOrEqual(3);
      const families = samples(r.text);
      for (const f of ['aduana_http_request_duration_seconds', 'aduana_ledger_append_seconds', 'aduana_process_cpu_user_seconds_total', 'aduana_nodejs_heap_size_used_bytes']) {
        expect(families.has(f)).toBe(true);
      }
    });
  }

  it("the bootstrap tenant's admin sees neither tenant; naming another tenant is refused", async () => {
    const r = await scrape(g.t.adminToken);
    expect(r.status).toBe(200);
    for (const t of [alpha, bravo]) {
      expect(r.text).not.toContain(t.id);
      expect(r.text).not.toContain(t.policy);
    }
    expectEnvelope(await call(g.t.url, 'GET', `/v1/telemetry/metrics?tenantId=${bravo.id}`, { token: alpha.viewer }), 403, 'permission_denied');
  });
});

describe('the operator scrape credential (METRICS_SCRAPE_TOKEN)', () => {
  it("sees every tenant's series, each labelled with its tenant", async () => {
    const r = await scrape(SCRAPE);
    expect(r.status).toBe(200);
    for (const t of [alpha, bravo]) {
      expect(value(r.text, 'aduana_decisions_total', { tenant: t.id, verdict: 'DENY' })).toBe(1);
      expect(value(r.text, 'aduana_blocks_total', { tenant: t.id, rule: t.policy })).toBe(1);
      expect(value(r.text, 'aduana_upstream_errors_total', { tenant: t.id, outcome: 'upstream_error' })).toBe(1);
      await expect.poll(async () => value((await scrape(SCRAPE)).text, 'aduana_ledger_entries', { tenant: t.id }), { timeout: 3000 }).toBeGreaterThanOrEqual(3);
    }
    expect(samples(r.text).has('aduana_process_cpu_user_seconds_total')).toBe(true);
  });

  it('no credential, a wrong one, or one of another length: 401; the credential is no PAT anywhere else', async () => {
    expectEnvelope(await scrape(), 401, 'authentication_error');
    expectEnvelope(await scrape(`${SCRAPE.slice(0, -1)}0`), 401, 'authentication_error');
    expectEnvelope(await scrape(`${SCRAPE}0`), 401, 'authentication_error');
    expectEnvelope(await scrape('x'), 401, 'authentication_error');
    expectEnvelope(await call(g.t.url, 'GET', '/v1/policies', { token: SCRAPE }), 401, 'authentication_error');
  });

  it('can be configured as its SHA-256 (the gateway then never holds it); a short or malformed value stops the start', async () => {
    const hashed = await startTestGateway({ metricsScrapeToken: `sha256:${createHash('sha256').update(SCRAPE).digest('hex')}` });
    try {
      expect((await call(hashed.url, 'GET', '/v1/telemetry/metrics', { token: SCRAPE })).status).toBe(200);
      expectEnvelope(await call(hashed.url, 'GET', '/v1/telemetry/metrics', { token: 'scrape-0123456789abcdef0123456789abcdee' }), 401, 'authentication_error');
    } finally {
      await hashed.close();
    }
    await expect(startTestGateway({ metricsScrapeToken: 'too-short' })).rejects.toThrow(/METRICS_SCRAPE_TOKEN/);
    await expect(startTestGateway({ metricsScrapeToken: 'sha256:abc' })).rejects.toThrow(/METRICS_SCRAPE_TOKEN/);
  });

  it('without the setting, no bearer is the scrape credential', async () => {
    const plain = await startTestGateway();
    try {
      expectEnvelope(await call(plain.url, 'GET', '/v1/telemetry/metrics', { token: SCRAPE }), 401, 'authentication_error');
      expect((await call(plain.url, 'GET', '/v1/telemetry/metrics', { token: plain.adminToken })).status).toBe(200);
    } finally {
      await plain.close();
    }
  });
});
