import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { TelemetryReceiver } from './helpers/telemetry-receiver.js';
import { poll } from '../../shared/test/helpers/poll.js';

let rx: TelemetryReceiver;
let t: TestGateway;
const forwarding = { telemetryFlushMs: 50, telemetryRetryBaseMs: 50, telemetryRetryMaxMs: 200, telemetryExportTimeoutMs: 1000 };

beforeAll(async () => {
  rx = await new TelemetryReceiver().start();
  t = await startTestGateway({ otlpEndpoint: rx.url, otlpHeaders: 'x-collector-key=s3cret', sentryDsn: rx.dsn, ...forwarding });
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

// A valid e-mail, a Luhn-valid card and a CPF with valid check digits.
const PII = 'contact ana.souza@example.com card 4111 1111 1111 1111 cpf 529.982.247-25';

describe('forwarding to an OpenTelemetry collector and a Sentry-compatible tracker', () => {
  it('logs, metrics and errors arrive, carry tenant and agent, and personal data arrives redacted', async () => {
    const tok = await t.tenant('fwd');
    const r = await call(t.url, 'POST', '/v1/telemetry/ingest', { token: tok.operator, body: { agentId: 'bot-1', traceId: 'tr-1', log: { level: 'error', message: `checkout failed: ${PII}`, attributes: { note: PII, step: 3 } } } });
    expect(r.body).toEqual({ status: 'ingested', traceId: 'tr-1', providers: ['otlp', 'sentry'] });
    await call(t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'bot-1', action: { type: 'tool_call' } } });

    await poll(() => rx.logs.some((l) => l.attributes['trace_id'] === 'tr-1'), { what: 'the log of tr-1 at the collector' });
    const log = rx.logs.find((l) => l.attributes['trace_id'] === 'tr-1')!;
    expect(log.severityText).toBe('ERROR');
    expect(rx.otlpHeaders.every((h) => h['x-collector-key'] === 's3cret' && h['content-type'] === 'application/json')).toBe(true);
    expect(log.attributes).toMatchObject({ tenant_id: 'fwd', agent_id: 'bot-1', step: 3, sanitization: 'pii-redacted' });
    for (const text of [log.body, String(log.attributes['note'])]) {
      expect(text).toContain('[REDACTED:EMAIL]');
      expect(text).toContain('[REDACTED:CREDIT_CARD]');
      expect(text).toContain('[REDACTED:BR_CPF]');
    }

    await poll(() => rx.errors.some((e) => e.tags['trace_id'] === 'tr-1'), { what: 'the error of tr-1 at the tracker' });
    const err = rx.errors.find((e) => e.tags['trace_id'] === 'tr-1')!;
    expect(err).toMatchObject({ level: 'error', tags: { tenant_id: 'fwd', agent_id: 'bot-1' } });
    expect(err.message).toContain('[REDACTED:EMAIL]');
    expect(err.fingerprint).toHaveLength(1);

    await poll(() => rx.metrics.some((m) => m.name === 'decision.count' && m.attributes['tenant_id'] === 'fwd'), { what: 'the decision.count metric of fwd at the collector' });
    expect(rx.metrics.find((m) => m.name === 'decision.count' && m.attributes['tenant_id'] === 'fwd')!.attributes['agent_id']).toBe('bot-1');
    expect(rx.metrics.some((m) => m.name === 'decision.latency_ms' && m.attributes['agent_id'] === 'bot-1')).toBe(true);

    // Nothing unredacted left this process, in any payload.
    for (const body of rx.rawBodies) {
      expect(body).not.toContain('ana.souza@example.com');
      expect(body).not.toContain('4111 1111 1111 1111');
      expect(body).not.toContain('529.982.247-25');
    }
    const status = await call(t.url, 'GET', '/v1/telemetry/status', { token: tok.viewer });
    expect(status.body.providers).toEqual({ logs_provider: 'ACTIVE', errors_provider: 'ACTIVE' });
    expect(status.body.latency_ms).toBeGreaterThanOrEqual(0);
  });

  for (const mode of ['fail', 'reset'] as const) {
    it(`with the providers ${mode === 'fail' ? 'answering 500' : 'dropping connections'}, requests still succeed, /status says DEGRADED, and queued items arrive once they are back`, async () => {
      const tok = await t.tenant(`fwd-${mode}`);
      rx.mode = mode;
      const traces: string[] = [];
      for (let i = 0; i < 3; i++) {
        const traceId = `${mode}-${i}`;
        traces.push(traceId);
        const r = await call(t.url, 'POST', '/v1/telemetry/ingest', { token: tok.operator, body: { agentId: 'bot-2', traceId, log: { level: 'error', message: `failure ${i}` } } });
        expect(r.status).toBe(200);
        const d = await call(t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'bot-2', action: { type: 'x' } } });
        expect(d.status).toBe(200);
      }
      // logs_provider turns DEGRADED on the first failure of either OTLP queue (logs or metrics): wait for the logs'
      // own, which a loaded machine can deliver after the metrics' one.
      await poll(async () => {
        const s = await call(t.url, 'GET', '/v1/telemetry/status', { token: tok.viewer });
        return s.body.providers.logs_provider === 'DEGRADED' && s.body.providers.errors_provider === 'DEGRADED' && s.body.queues['otlp-logs'].failures > 0;
      }, { what: 'the logs and errors providers to turn DEGRADED' });
      const degraded = await call(t.url, 'GET', '/v1/telemetry/status', { token: tok.viewer });
      expect(degraded.body.queues['otlp-logs'].queued).toBeGreaterThan(0);
      expect(degraded.body.queues['otlp-logs'].failures).toBeGreaterThan(0);
      expect(rx.logs.some((l) => traces.includes(String(l.attributes['trace_id'])))).toBe(false);

      rx.mode = 'ok';
      await poll(() => traces.every((tr) => rx.logs.some((l) => l.attributes['trace_id'] === tr) && rx.errors.some((e) => e.tags['trace_id'] === tr)), { what: 'every held log and error to arrive' });
      await poll(async () => (await call(t.url, 'GET', '/v1/telemetry/status', { token: tok.viewer })).body.providers.logs_provider === 'ACTIVE', { what: 'logs_provider to be ACTIVE again' });
      const status = await call(t.url, 'GET', '/v1/telemetry/status', { token: tok.viewer });
      expect(status.body.providers.errors_provider).toBe('ACTIVE');
      expect(status.body.queues['otlp-logs'].dropped).toEqual({ queue_full: 0, rejected: 0, shutdown: 0 });
    });
  }
});

describe('redaction of what is stored and forwarded (issue 31)', () => {
  /** Ingests one error log; returns it as stored (log, error event, issue) and as forwarded (OTLP record, Sentry event). */
  async function ingestEverywhere(tenant: string, marker: string, body: { agentId: string; traceId: string; message: string; attributes: Record<string, unknown> }) {
    const tok = await t.tenant(tenant);
    const message = `${body.message} (case ${marker})`;
    const r = await call(t.url, 'POST', '/v1/telemetry/ingest', { token: tok.operator, body: { agentId: body.agentId, traceId: body.traceId, log: { level: 'error', message, attributes: body.attributes } } });
    expect(r.status).toBe(200);
    // A filter by the agent id as sent still finds the log stored under the redacted one.
    const logs = await call(t.url, 'GET', `/v1/telemetry/query/logs?agentId=${encodeURIComponent(body.agentId)}`, { token: tok.viewer });
    expect(logs.body.total).toBe(1);
    const events = await call(t.url, 'GET', '/v1/telemetry/query/errors/events', { token: tok.viewer });
    const issues = await call(t.url, 'GET', '/v1/telemetry/query/errors/issues', { token: tok.viewer });
    await poll(() => rx.logs.some((l) => l.body.includes(marker)) && rx.errors.some((e) => e.message.includes(marker)), { what: 'the marked log and error to arrive' });
    return {
      log: logs.body.data[0],
      event: events.body.data[0],
      issue: issues.body.data[0],
      otlp: rx.logs.find((l) => l.body.includes(marker))!,
      sentry: rx.errors.find((e) => e.message.includes(marker))!,
    };
  }

  it('numeric card, CPF and phone attributes and agent and trace ids holding an e-mail arrive redacted in the store, the OTLP export and Sentry', async () => {
    // A Luhn-valid card, a CPF with valid check digits and a Brazilian mobile in E.164, sent as JSON numbers.
    const numbers = { card: 4111111111111111, cpf: 52998224725, phone: 5511912345678, count: 3, ms: 1718000000000 };
    const got = await ingestEverywhere('fwd-ids', 'ids-1', { agentId: 'bot-carla.dias@example.com', traceId: 'trace-of-carla.dias@example.com', message: 'payment failed', attributes: numbers });
    const attributes = { card: '[REDACTED:CREDIT_CARD]', cpf: '[REDACTED:BR_CPF]', phone: '[REDACTED:PHONE]', count: 3, ms: 1718000000000 };
    const ids = { agentId: '[REDACTED:EMAIL]', traceId: '[REDACTED:EMAIL]' };
    expect(got.log).toMatchObject({ ...ids, attributes });
    expect(got.event.context).toMatchObject(ids);
    expect(got.issue.agentId).toBe('[REDACTED:EMAIL]');
    expect(got.otlp.attributes).toMatchObject({ ...attributes, agent_id: '[REDACTED:EMAIL]', trace_id: '[REDACTED:EMAIL]' });
    expect(got.sentry.tags).toMatchObject({ agent_id: '[REDACTED:EMAIL]', trace_id: '[REDACTED:EMAIL]' });
    for (const body of rx.rawBodies) {
      for (const leak of ['carla.dias', '4111111111111111', '52998224725', '5511912345678']) expect(body).not.toContain(leak);
    }
  });

  it('an e-mail in full-width characters, percent-encoded or as an HTML entity arrives redacted in the store, the OTLP export and Sentry', async () => {
    const spellings = { fullwidth: 'ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｃｏｍ', percent: 'alice%40example.com', entity: 'alice&#64;example.com' };
    const got = await ingestEverywhere('fwd-encoded', 'enc-1', { agentId: 'bot-e', traceId: 'tr-enc-1', message: `login failed for ${Object.values(spellings).join(', ')}`, attributes: spellings });
    const message = 'login failed for [REDACTED:EMAIL], [REDACTED:EMAIL], [REDACTED:EMAIL] (case enc-1)';
    const attributes = { fullwidth: '[REDACTED:EMAIL]', percent: '[REDACTED:EMAIL]', entity: '[REDACTED:EMAIL]' };
    expect(got.log).toMatchObject({ message, attributes });
    expect(got.event.message).toBe(message);
    expect(got.issue.title).toBe(message);
    expect(got.otlp.body).toBe(message);
    expect(got.otlp.attributes).toMatchObject(attributes);
    expect(got.sentry.message).toBe(message);
    for (const body of rx.rawBodies) {
      for (const leak of ['alice', 'ａｌｉｃｅ']) expect(body).not.toContain(leak);
    }
  });

  it("a ruleId in an ingested log's attributes is the error event's rule: in the query, the issue's fingerprint and the Sentry envelope", async () => {
    const tok = await t.tenant('fwd-rule');
    for (const ruleId of ['pol_no_sql', 'pol_no_pii']) {
      const r = await call(t.url, 'POST', '/v1/telemetry/ingest', { token: tok.operator, body: { agentId: 'bot-r', traceId: `tr-${ruleId}`, log: { level: 'error', message: 'tool call blocked', attributes: { ruleId } } } });
      expect(r.status).toBe(200);
    }
    const events = await call(t.url, 'GET', '/v1/telemetry/query/errors/events', { token: tok.viewer });
    expect(events.body.data.map((e: { context: { ruleId: string } }) => e.context.ruleId)).toEqual(['pol_no_pii', 'pol_no_sql']);
    // The rule is part of the fingerprint: the same message under two rules is two issues.
    const issues = await call(t.url, 'GET', '/v1/telemetry/query/errors/issues', { token: tok.viewer });
    expect(issues.body.total).toBe(2);
    await poll(() => ['tr-pol_no_sql', 'tr-pol_no_pii'].every((tr) => rx.errors.some((e) => e.tags['trace_id'] === tr)), { what: 'the errors of tr-pol_no_sql and tr-pol_no_pii at the tracker' });
    expect(rx.errors.find((e) => e.tags['trace_id'] === 'tr-pol_no_sql')!.tags['rule_id']).toBe('pol_no_sql');
    expect(rx.errors.find((e) => e.tags['trace_id'] === 'tr-pol_no_pii')!.tags['rule_id']).toBe('pol_no_pii');
  });
});

describe('bounded queues', () => {
  it('past the queue bound items are dropped and counted in /status and /metrics, never silently', async () => {
    const down = await new TelemetryReceiver().start();
    down.mode = 'fail';
    const small = await startTestGateway({ otlpEndpoint: down.url, sentryDsn: down.dsn, telemetryQueueMax: 2, ...forwarding, telemetryRetryBaseMs: 5000, telemetryRetryMaxMs: 5000 });
    try {
      const tok = await small.tenant('small');
      for (let i = 0; i < 6; i++) {
        const r = await call(small.url, 'POST', '/v1/telemetry/ingest', { token: tok.operator, body: { agentId: 'b', log: { level: 'error', message: `e${i}` } } });
        expect(r.status).toBe(200);
      }
      const s = await call(small.url, 'GET', '/v1/telemetry/status', { token: tok.viewer });
      expect(s.body.queues['otlp-logs'].dropped.queue_full).toBeGreaterThanOrEqual(4);
      expect(s.body.queues['sentry'].dropped.queue_full).toBeGreaterThanOrEqual(4);
      const m = await call(small.url, 'GET', '/v1/telemetry/metrics', { token: tok.viewer });
      const families = new Map(parsePrometheusTextFormat(m.text).map((f) => [f.name, f]));
      const dropped = families.get('aduana_telemetry_dropped_total')!.metrics.find((x) => x.labels?.['provider'] === 'otlp-logs' && x.labels['reason'] === 'queue_full');
      expect(Number(dropped?.value)).toBeGreaterThanOrEqual(4);
      const depth = families.get('aduana_telemetry_queue_depth')!.metrics.find((x) => x.labels?.['provider'] === 'otlp-logs');
      expect(Number(depth?.value)).toBe(2);
    } finally {
      await small.close();
      await down.close();
    }
  });

  it('the queue is bounded in bytes too: large logs are dropped past TELEMETRY_QUEUE_MAX_BYTES, and room returns once they are sent', async () => {
    const down = await new TelemetryReceiver().start();
    down.mode = 'fail';
    const maxBytes = 64 * 1024;
    const small = await startTestGateway({ otlpEndpoint: down.url, telemetryQueueMax: 1000, telemetryQueueMaxBytes: maxBytes, ...forwarding });
    try {
      const tok = await small.tenant('bytes');
      const message = 'x'.repeat(16_000); // the largest message a log may carry is 16,384 characters
      const status = async () => (await call(small.url, 'GET', '/v1/telemetry/status', { token: tok.viewer })).body.queues['otlp-logs'];
      for (let i = 0; i < 8; i++) {
        const r = await call(small.url, 'POST', '/v1/telemetry/ingest', { token: tok.operator, body: { agentId: 'b', traceId: `big-${i}`, log: { level: 'info', message } } });
        expect(r.status).toBe(200);
      }
      const full = await status();
      expect(full.queued).toBe(4); // 4 × ~16.1 K fit in 64 KiB, a fifth does not
      expect(full.queued_bytes).toBeGreaterThan(4 * 16_000);
      expect(full.queued_bytes).toBeLessThanOrEqual(maxBytes);
      expect(full.dropped.queue_full).toBe(4);

      down.mode = 'ok';
      await poll(async () => (await status()).queued_bytes === 0, { what: 'the logs queue to empty' });
      expect(down.logs.map((l) => l.attributes['trace_id'])).toEqual(['big-0', 'big-1', 'big-2', 'big-3']);
      const r = await call(small.url, 'POST', '/v1/telemetry/ingest', { token: tok.operator, body: { agentId: 'b', traceId: 'big-after', log: { level: 'info', message } } });
      expect(r.status).toBe(200);
      await poll(() => down.logs.some((l) => l.attributes['trace_id'] === 'big-after'), { what: 'the log of big-after at the collector' });
      expect((await status()).dropped.queue_full).toBe(4);
    } finally {
      await small.close();
      await down.close();
    }
  });
});
