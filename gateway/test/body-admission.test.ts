import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import { poll } from '../../shared/test/helpers/poll.js';

const KIB = 1024;
const MIB = 1024 * KIB;

let t: TestGateway;
let upstream: MockUpstream;
const open: Socket[] = [];

beforeAll(async () => {
  upstream = await new MockUpstream().start();
  t = await startTestGateway({ upstreamBaseUrl: `${upstream.url}/v1`, bodyBytesInFlightMax: 2 * MIB, tenantBodyBytesInFlightMax: MIB });
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});
afterEach(async () => {
  for (const s of open.splice(0)) s.destroy();
  await poll(() => t.gw.bodyBytesInFlight() === 0, { what: 'every body reservation to be released' });
});

interface Pending {
  sock: Socket;
  /** Resolves with the status line and body once an answer arrives. */
  answer: Promise<{ status: number; body: string; head: string }>;
}

/**
 * Opens a request that declares `declared` body bytes and sends only the first `sent` of them, then holds the
 * connection open: the gateway either answers without waiting for the rest, or is left reading.
 */
function hold(base: string, path: string, declared: number, sent: number, token?: string): Promise<Pending> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(port), hostname, () => {
      const head = [`POST ${path} HTTP/1.1`, 'Host: x', 'Content-Type: application/json', 'x-svc-agent-id: holder', `Content-Length: ${declared}`];
      if (token) head.push(`Authorization: Bearer ${token}`);
      sock.write(`${head.join('\r\n')}\r\n\r\n`);
      if (sent > 0) sock.write(Buffer.alloc(sent, 0x20));
      resolve({ sock, answer });
    });
    open.push(sock);
    sock.on('error', reject);
    const parts: Buffer[] = [];
    const answer = new Promise<{ status: number; body: string; head: string }>((res) => {
      sock.on('data', (d: Buffer) => {
        parts.push(d);
        const text = Buffer.concat(parts).toString('latin1');
        const split = text.indexOf('\r\n\r\n');
        if (split < 0) return;
        const len = /content-length: (\d+)/i.exec(text.slice(0, split));
        if (len && text.length - split - 4 < Number(len[1])) return;
        res({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), head: text.slice(0, split), body: text.slice(split + 4) });
      });
    });
  });
}

/** The answer, or a failure when none comes while the body is still unsent (a generous liveness bound). */
function answered(p: Pending, ms = 5000): Promise<{ status: number; body: string; head: string }> {
  return Promise.race([p.answer, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('no answer while the body was still unsent')), ms))]);
}

function envelope(a: { status: number; body: string }): { code: number; type: string } {
  return (JSON.parse(a.body) as { error: { code: number; type: string } }).error;
}

describe('refusals that need no body come before the body is read', () => {
  it('no token: 401 on the API, the proxy and /token while the client is still sending its body, nothing buffered', async () => {
    // Each declared size is within the route's body limit (API 1 MiB, proxy 10 MiB).
    for (const [base, path, size] of [
      [t.url, '/v1/decide', 900 * KIB],
      [t.url, '/v1/events', 900 * KIB],
      [t.url, '/v1/proxy/chat/completions', 9.5 * MIB],
      [t.authUrl, '/token', 900 * KIB],
    ] as const) {
      const p = await hold(base, path, size, 64 * KIB);
      const a = await answered(p);
      expect(a.status, path).toBe(401);
      expect(envelope(a)).toMatchObject({ code: 401, type: 'authentication_error' });
      expect(t.gw.bodyBytesInFlight()).toBe(0);
    }
  });

  it('a token without the scope: 403 before the body; a tenant over its plan: 429 before the body', async () => {
    const tok = await t.tenant('body-scope', 'community');
    const p = await hold(t.url, '/v1/decide', MIB / 2, KIB, tok.viewer);
    expect((await answered(p)).status).toBe(403);
    const proxied = await hold(t.url, '/v1/proxy/chat/completions', MIB / 2, KIB, tok.viewer);
    expect((await answered(proxied)).status).toBe(403);
    // Spend the community burst (10) without bodies, then a request with a body is refused before it is read.
    for (let i = 0; i < 12; i++) await call(t.url, 'GET', '/v1/policies', { token: tok.viewer });
    const limited = await hold(t.url, '/v1/decide', MIB / 2, KIB, tok.operator);
    const a = await answered(limited);
    expect(a.status).toBe(429);
    expect(a.head).toMatch(/retry-after: \d+/i);
    expect(t.gw.bodyBytesInFlight()).toBe(0);
  });
});

describe('bytes in flight are capped, globally and per tenant', () => {
  const decideBody = (size: number) => {
    const base = JSON.stringify({ agent_id: 'a', action: { type: 'x', payload: { t: '' } } });
    return JSON.stringify({ agent_id: 'a', action: { type: 'x', payload: { t: 'x'.repeat(Math.max(0, size - base.length)) } } });
  };

  it('over the tenant share: 429 with Retry-After; other tenants are still served; over the global cap: 503 with Retry-After', async () => {
    const a = await t.tenant('bytes-a');
    const b = await t.tenant('bytes-b');
    const c = await t.tenant('bytes-c');
    // Tenant A holds 900 KiB of its 1 MiB share: the gateway has reserved them and is waiting for the rest.
    const heldA = await hold(t.url, '/v1/decide', 900 * KIB, KIB, a.operator);
    await poll(() => t.gw.bodyBytesInFlight() === 900 * KIB, { what: '900 KiB of A to be reserved' });

    // A second 200 KiB body of tenant A does not fit its share: 429, whether to the API or the proxy.
    const overShare = await call(t.url, 'POST', '/v1/decide', { token: a.operator, rawBody: decideBody(200 * KIB), headers: { 'content-type': 'application/json' } });
    expectEnvelope(overShare, 429, 'rate_limit_exceeded');
    expect(Number(overShare.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const chat = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(200 * KIB) }] });
    const proxied = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: a.operator, rawBody: chat, headers: { 'content-type': 'application/json', 'x-svc-agent-id': 'a' } });
    expectEnvelope(proxied, 429, 'rate_limit_exceeded');
    expect(upstream.received).toHaveLength(0);

    // Tenant B is served within its own share while A is held.
    const okB = await call(t.url, 'POST', '/v1/decide', { token: b.operator, rawBody: decideBody(200 * KIB), headers: { 'content-type': 'application/json' } });
    expect(okB.status).toBe(200);

    // B holds 900 KiB too: 1.8 MiB of the 2 MiB global cap are reserved.
    const heldB = await hold(t.url, '/v1/decide', 900 * KIB, KIB, b.operator);
    await poll(() => t.gw.bodyBytesInFlight() === 1800 * KIB, { what: '1800 KiB of A and B to be reserved' });
    // C's 400 KiB body would pass the global cap: 503, Retry-After.
    const busy = await call(t.url, 'POST', '/v1/decide', { token: c.operator, rawBody: decideBody(400 * KIB), headers: { 'content-type': 'application/json' } });
    expectEnvelope(busy, 503, 'upstream_unavailable');
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // A small body of C still fits.
    expect((await call(t.url, 'POST', '/v1/decide', { token: c.operator, body: { agent_id: 'a', action: { type: 'x' } } })).status).toBe(200);

    // The holders leave: their reservations are released, and A is served again.
    heldA.sock.destroy();
    heldB.sock.destroy();
    await poll(() => t.gw.bodyBytesInFlight() === 0, { what: 'the reservations to be released' });
    expect((await call(t.url, 'POST', '/v1/decide', { token: a.operator, rawBody: decideBody(200 * KIB), headers: { 'content-type': 'application/json' } })).status).toBe(200);
  });

  it('a chunked body (no Content-Length) is counted as it arrives, against the same share', async () => {
    const a = await t.tenant('bytes-chunked');
    const { hostname, port } = new URL(t.url);
    const sock = await new Promise<Socket>((resolve, reject) => {
      const s = connect(Number(port), hostname, () => {
        s.write(`POST /v1/decide HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.operator}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
        // 768 KiB in 64 KiB chunks, and no last chunk: the body is still arriving.
        const chunk = Buffer.alloc(64 * KIB, 0x20).toString('latin1');
        for (let i = 0; i < 12; i++) s.write(`${(64 * KIB).toString(16)}\r\n${chunk}\r\n`);
        resolve(s);
      });
      open.push(s);
      s.on('error', reject);
    });
    await poll(() => t.gw.bodyBytesInFlight() >= 700 * KIB, { what: '700 KiB of the chunked body to be reserved' });
    const over = await call(t.url, 'POST', '/v1/decide', { token: a.operator, rawBody: decideBody(300 * KIB), headers: { 'content-type': 'application/json' } });
    expectEnvelope(over, 429, 'rate_limit_exceeded');
    sock.destroy();
    await poll(() => t.gw.bodyBytesInFlight() === 0, { what: 'the reservation to be released' });
    expect((await call(t.url, 'POST', '/v1/decide', { token: a.operator, rawBody: decideBody(300 * KIB), headers: { 'content-type': 'application/json' } })).status).toBe(200);
  });
});
