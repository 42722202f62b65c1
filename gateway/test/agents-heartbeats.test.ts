import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type RunningGateway } from '../src/index.js';
import { call, expectEnvelope, startTestGateway } from './helpers/start-test-gateway.js';
import { threadingUnderTest } from './helpers/threading-under-test.js';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The agent's counted missed intervals, and the sum of its heartbeat.missed_count series (they must agree). */
async function missed(url: string, token: string, agent: string): Promise<{ total: number; series: number; base: number }> {
  const a = await call(url, 'GET', `/v1/agents/${agent}`, { token });
  const now = Math.floor(Date.now() / 1000);
  const s = await call(url, 'GET', `/v1/telemetry/query/stats?metric=heartbeat.missed_count&from=${now - 3600}&to=${now + 5}&agentId=${agent}`, { token });
  expect(s.status).toBe(200);
  const series = (s.body.series as { value: number }[]).reduce((n, p) => n + p.value, 0);
  return { total: a.body.heartbeat.missed_count, series, base: Date.parse(a.body.heartbeat.next_due) - 1000 };
}

describe('missed heartbeats', () => {
  it('each missed interval counts once, including those missed while the gateway was down, never twice after a restart', async () => {
    const t = await startTestGateway({ heartbeatIntervalS: 1 });
    const dataDir = t.dataDir;
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const tok = await t.tenant('hb');
    await call(t.url, 'POST', '/v1/agents/register', { token: tok.operator, body: { agent_id: 'sleepy', name: 's' } });
    await call(t.url, 'POST', '/v1/agents/register', { token: tok.operator, body: { agent_id: 'alive', name: 'a' } });
    // `alive` keeps beating; `sleepy` goes silent.
    const beat = setInterval(() => void call(t.url, 'POST', '/v1/heartbeat', { token: tok.operator, body: { agent_id: 'alive' } }), 300);
    await sleep(3600);
    const before = await missed(t.url, tok.viewer, 'sleepy');
    // 3.6 s after its registration: the beats due at +1 s and +2 s are missed (the one due at +3 s has until +4 s).
    expect(before.total).toBeGreaterThanOrEqual(1);
    expect(before.total).toBeLessThanOrEqual(2);
    expect(before.series).toBe(before.total);
    clearInterval(beat);
    const aliveBefore = await missed(t.url, tok.viewer, 'alive');
    expect(aliveBefore.total).toBe(0);
    await t.gw.close();

    await sleep(2500);
    const config = loadGatewayConfig({}, { dataDir, port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', heartbeatIntervalS: 1, ...threadingUnderTest() });
    const gw: RunningGateway = await startGateway({ config, logger: createLogger('test', { level: 'silent' }) });
    cleanup.push(() => gw.close());
    const after = await missed(gw.url, tok.viewer, 'sleepy');
    const expected = Math.floor((Date.now() - after.base) / 1000) - 1;
    // Counted at start: everything missed while down, once (the pass at start may lag the clock by one interval).
    expect(after.total).toBeGreaterThan(before.total);
    expect(after.total).toBeGreaterThanOrEqual(expected - 1);
    expect(after.total).toBeLessThanOrEqual(expected);
    expect(after.series).toBe(after.total);
    await sleep(1200);
    const later = await missed(gw.url, tok.viewer, 'sleepy');
    expect(later.series).toBe(later.total);
    expect(later.total).toBeGreaterThan(after.total);
    // A heartbeat restarts the count; a suspended agent is not counted.
    await call(gw.url, 'POST', '/v1/heartbeat', { token: tok.operator, body: { agent_id: 'sleepy' } });
    const a = await call(gw.url, 'GET', '/v1/agents/sleepy', { token: tok.viewer });
    expect(a.body.status).toBe('ACTIVE');
  }, 30_000);
});

describe('REQUIRE_REGISTERED_AGENTS', () => {
  it('refuses an unregistered agent with 403 rule agent_unregistered on decide, the proxy and heartbeats; registered, it passes', async () => {
    const t = await startTestGateway({ requireRegisteredAgents: true });
    cleanup.push(() => t.close());
    const tok = await t.tenant('strict');
    const d = await call(t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'stranger', action: { type: 'x' } } });
    expect(expectEnvelope(d, 403, 'permission_denied').rule).toBe('agent_unregistered');
    const p = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, headers: { 'x-svc-agent-id': 'stranger' }, body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } });
    expect(expectEnvelope(p, 403, 'permission_denied').rule).toBe('agent_unregistered');
    expect(expectEnvelope(await call(t.url, 'POST', '/v1/heartbeat', { token: tok.operator, body: { agent_id: 'stranger' } }), 403, 'permission_denied').rule).toBe('agent_unregistered');
    expect((await call(t.url, 'GET', '/v1/agents', { token: tok.viewer })).body.total).toBe(0);
    await call(t.url, 'POST', '/v1/agents/register', { token: tok.operator, body: { agent_id: 'stranger', name: 'known now' } });
    expect((await call(t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'stranger', action: { type: 'x' } } })).body.envelope.execution_status).toBe('ALLOW');
  });
});
