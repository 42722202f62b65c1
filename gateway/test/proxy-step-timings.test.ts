import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/start-test-gateway.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';

// PROXY_STEP_TIMINGS (docs/telemetry.md, "Prometheus"): each step of a proxied call is timed into
// aduana_proxy_step_seconds{step}; without the setting the series does not exist.
let on: GatewayWithMock;
let off: GatewayWithMock;

beforeAll(async () => {
  on = await startGatewayWithMock({ proxyStepTimings: true });
  off = await startGatewayWithMock();
}, 60_000);
afterAll(async () => {
  await closeGatewayWithMock(on);
  await closeGatewayWithMock(off);
});

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] };

async function scrape(g: GatewayWithMock): Promise<string> {
  const r = await call(g.t.url, 'GET', '/v1/telemetry/metrics', { token: g.t.adminToken });
  expect(r.status).toBe(200);
  return r.text;
}

const count = (text: string, step: string): number => Number(new RegExp(`^aduana_proxy_step_seconds_count\\{step="${step.replace('.', '\\.')}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

describe('proxy step timings', () => {
  it('observes every step of each call once, and the waits of the steps that waited', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await call(on.t.url, 'POST', '/v1/proxy/chat/completions', { token: on.t.adminToken, headers: { 'x-svc-agent-id': 'timed' }, body: chat });
      expect(r.status).toBe(200);
    }
    const text = await scrape(on);
    for (const step of ['authenticate', 'read-body', 'parse-intent', 'evaluate-policies', 'redact-input', 'request-usage', 'forward', 'read-answer', 'meter-usage', 'redact-output', 'check-output', 'seal-answer', 'record', 'write-answer']) expect(count(text, step)).toBe(3);
    // The upstream's answer is waited for on every call; a whole-answer call has no stream to relay (every step's
    // series exists from the start, at zero until observed).
    expect(count(text, 'forward.wait')).toBe(3);
    expect(count(text, 'relay-stream.wait')).toBe(0);
    const sum = Number(/^aduana_proxy_step_seconds_sum\{step="forward\.wait"\} (\S+)$/m.exec(text)?.[1]);
    expect(sum).toBeGreaterThan(0);
  });

  it('a step that refuses the call ends the timing there', async () => {
    const r = await call(on.t.url, 'POST', '/v1/proxy/chat/completions', { token: on.t.adminToken, body: chat });
    expect(r.status).toBe(400); // no x-svc-agent-id: refused by authenticate
    const text = await scrape(on);
    expect(count(text, 'authenticate')).toBe(3);
    expect(count(text, 'forward')).toBe(3);
  });

  it('is off by default: no series at all', async () => {
    expect((await call(off.t.url, 'POST', '/v1/proxy/chat/completions', { token: off.t.adminToken, headers: { 'x-svc-agent-id': 'untimed' }, body: chat })).status).toBe(200);
    expect(await scrape(off)).not.toContain('aduana_proxy_step_seconds');
  });
});
