import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSwitchableSite, type SwitchableSite } from './fixtures/switchable-site.js';
import { poll } from '../../shared/test/helpers/poll.js';
import { startFixture, type FixtureServer } from './helpers/fixture-server.js';
import { keyForOrg, removeDataDir, startKeyedScanner, type KeyedScanner } from './helpers/keyed-scanner.js';
import { selfSignedCert } from '../../shared/test/helpers/self-signed-cert.js';

/**
 * Signed webhook deliveries to a real HTTPS receiver on 127.0.0.1 (a throwaway certificate the scanner is told to
 * trust), reachable only because the test allows 127.0.0.0/8 through SCANNER_ALLOW_PRIVATE.
 */
interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

let site: SwitchableSite;
let receiver: FixtureServer;
let sc: KeyedScanner;
const received: Received[] = [];
let flakyCalls = 0;

beforeAll(async () => {
  site = await startSwitchableSite();
  const cert = selfSignedCert({ commonName: '127.0.0.1', altNames: ['127.0.0.1'] });
  receiver = await startFixture(
    (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const path = req.url ?? '/';
        received.push({ path, headers: req.headers, body });
        if (path === '/hang') return; // never answers
        if (path === '/redirect') {
          res.writeHead(307, { location: '/ok' }).end();
          return;
        }
        if (path === '/flaky' && flakyCalls++ === 0) {
          res.writeHead(500).end('try again');
          return;
        }
        if (path === '/gone') {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    },
    { tls: cert },
  );
  sc = await startKeyedScanner(
    { schedulerTickMs: 3_600_000, webhookTimeoutMs: 400, webhookRetryFirstMs: 50, webhookRetrySecondMs: 100 },
    { webhookCa: [cert.cert] },
  );
});

afterAll(async () => {
  await sc?.close();
  await Promise.all([site?.close(), receiver?.close()]);
  if (sc) removeDataDir(sc.dataDir);
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

type Attempt = { attempt: number; status: number | null; error: string | null; event: string; deliveryId: string };

/** A fresh organisation with one webhook on `path`, and a monitor whose score then moves from bare to good. */
async function scoreChangeTo(path: string, minScoreDelta = 0): Promise<{ key: string; hookId: string; secret: string }> {
  const key = await keyForOrg(sc.dataDir, `hooks-${path}-${String(Math.random())}`);
  const hook = await sc.call('POST', '/api/v1/webhooks', { key, body: { url: `${receiver.origin}${path}`, minScoreDelta } });
  expect(hook.status).toBe(201);
  const monitor = (await sc.call('POST', '/api/v1/monitors', { key, body: { url: `${site.origin}${path}`, cadenceHours: 720 } })).body;
  site.set('bare');
  expect((await sc.call('POST', `/api/v1/monitors/${monitor.id as string}/run`, { key })).status).toBe(200);
  site.set('good');
  const second = await sc.call('POST', `/api/v1/monitors/${monitor.id as string}/run`, { key, headers: { traceparent: TRACEPARENT } });
  expect(second.status).toBe(200);
  expect(second.headers.get('x-svc-trace-id')).toBe(TRACE_ID);
  return { key, hookId: hook.body.id, secret: hook.body.signingSecret };
}

async function attempts(key: string, hookId: string, count: number): Promise<Attempt[]> {
  const items = await poll(async () => (await sc.call('GET', `/api/v1/webhooks/${hookId}/deliveries`, { key })).body.items as Attempt[], {
    what: `${count} delivery attempts`,
    until: (got) => got.length >= count,
    timeoutMs: 15_000,
  });
  return [...items].reverse();
}

describe('webhook deliveries', () => {
  it('monitor.score_changed is signed v1=HMAC-SHA-256(secret, timestamp.body) with the secret shown once', async () => {
    const { key, hookId, secret } = await scoreChangeTo('/ok');
    expect(secret).toMatch(/^whsec_/);
    const [attempt] = await attempts(key, hookId, 1);
    expect(attempt).toMatchObject({ attempt: 1, status: 200, error: null, event: 'monitor.score_changed' });
    const got = received.find((r) => r.path === '/ok' && r.headers['x-svc-delivery'] === attempt?.deliveryId);
    expect(got).toBeDefined();
    const timestamp = String(got?.headers['x-svc-timestamp']);
    expect(timestamp).toMatch(/^[0-9]{10}$/);
    const expected = `v1=${createHmac('sha256', secret).update(`${timestamp}.${got?.body ?? ''}`).digest('hex')}`;
    expect(got?.headers['x-svc-signature']).toBe(expected);
    // The run-now request's trace continues into the delivery (a new span of the same trace).
    expect(got?.headers.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(got?.headers.traceparent).not.toBe(TRACEPARENT);
    const payload = JSON.parse(got?.body ?? '{}');
    expect(payload).toMatchObject({ event: 'monitor.score_changed', data: { url: `${site.origin}/ok` } });
    expect(payload.data.score).not.toBe(payload.data.previousScore);
    // The secret is never shown again.
    const listed = (await sc.call('GET', '/api/v1/webhooks', { key })).body.items;
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(listed[0]).not.toHaveProperty('signingSecret');
  });

  it('a 500 then a 200 gives two recorded attempts', async () => {
    const { key, hookId } = await scoreChangeTo('/flaky');
    const list = await attempts(key, hookId, 2);
    await new Promise((r) => setTimeout(r, 300)); // no third attempt comes
    const after = (await sc.call('GET', `/api/v1/webhooks/${hookId}/deliveries`, { key })).body.items as Attempt[];
    expect(after).toHaveLength(2);
    expect(list.map((a) => [a.attempt, a.status])).toEqual([[1, 500], [2, 200]]);
  });

  it('a redirect is recorded as the answer and not followed, nor retried', async () => {
    const before = received.filter((r) => r.path === '/ok').length;
    const { key, hookId } = await scoreChangeTo('/redirect');
    const [first] = await attempts(key, hookId, 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(first).toMatchObject({ status: 307, error: null });
    expect((await sc.call('GET', `/api/v1/webhooks/${hookId}/deliveries`, { key })).body.items).toHaveLength(1);
    expect(received.filter((r) => r.path === '/ok').length).toBe(before);
  });

  it('a receiver that hangs is timed out, retried, and stops after three attempts', async () => {
    const { key, hookId } = await scoreChangeTo('/hang');
    const list = await attempts(key, hookId, 3);
    await new Promise((r) => setTimeout(r, 600));
    expect((await sc.call('GET', `/api/v1/webhooks/${hookId}/deliveries?limit=100`, { key })).body.items).toHaveLength(3);
    expect(list.map((a) => [a.attempt, a.status, a.error])).toEqual([[1, null, 'timeout'], [2, null, 'timeout'], [3, null, 'timeout']]);
  });

  it('a 4xx is not retried; a change smaller than minScoreDelta sends nothing', async () => {
    const gone = await scoreChangeTo('/gone');
    const [only] = await attempts(gone.key, gone.hookId, 1);
    expect(only).toMatchObject({ status: 404 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await sc.call('GET', `/api/v1/webhooks/${gone.hookId}/deliveries`, { key: gone.key })).body.items).toHaveLength(1);
    const quiet = await scoreChangeTo('/quiet', 100);
    await new Promise((r) => setTimeout(r, 300));
    expect((await sc.call('GET', `/api/v1/webhooks/${quiet.hookId}/deliveries`, { key: quiet.key })).body.items).toEqual([]);
    expect(received.some((r) => r.path === '/quiet')).toBe(false);
  });
});

describe('webhook creation', () => {
  it('a private address, http:, a bad threshold or an extra property is 400 {error} and nothing is stored', async () => {
    const key = await keyForOrg(sc.dataDir, 'hooks-bad-input');
    const bad: unknown[] = [
      { url: 'https://10.0.0.1/hook' },
      { url: 'https://169.254.169.254/latest' },
      { url: 'https://[::ffff:10.0.0.1]/hook' },
      { url: `http://127.0.0.1:${String(receiver.port)}/ok` },
      { url: 'ftp://example.org/' },
      { url: 'not a url' },
      { url: `${receiver.origin}/ok`, minScoreDelta: 101 },
      { url: `${receiver.origin}/ok`, minScoreDelta: -1 },
      { url: `${receiver.origin}/ok`, minScoreDelta: '5' },
      { url: `${receiver.origin}/ok`, extra: true },
      { minScoreDelta: 5 },
    ];
    for (const body of bad) {
      const res = await sc.call('POST', '/api/v1/webhooks', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
    expect((await sc.call('GET', '/api/v1/webhooks', { key })).body.items).toEqual([]);
    const ok = await sc.call('POST', '/api/v1/webhooks', { key, body: { url: `${receiver.origin}/ok` } });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ minScoreDelta: 5, active: true });
  });

  it('answers 503 when SCANNER_SECRET_KEY is unset, and stores nothing', async () => {
    const unsigned = await startKeyedScanner({ secretKey: '', schedulerTickMs: 3_600_000 });
    try {
      const res = await unsigned.call('POST', '/api/v1/webhooks', { body: { url: `${receiver.origin}/ok` } });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'Webhook signing is unavailable: the service has no secret key.' });
      expect((await unsigned.call('GET', '/api/v1/webhooks')).body.items).toEqual([]);
    } finally {
      await unsigned.close();
      removeDataDir(unsigned.dataDir);
    }
  });

  it('DELETE deactivates (204; still listed, inactive; no more deliveries); 404 when absent', async () => {
    const { key, hookId } = await scoreChangeTo('/ok');
    await attempts(key, hookId, 1);
    expect((await sc.call('DELETE', `/api/v1/webhooks/${hookId}`, { key })).status).toBe(204);
    expect((await sc.call('GET', '/api/v1/webhooks', { key })).body.items[0]).toMatchObject({ id: hookId, active: false });
    expect((await sc.call('DELETE', '/api/v1/webhooks/0b8e6f1c-8a7e-4d4c-9d53-0c1f0b7e2a11', { key })).status).toBe(404);
  });
});
