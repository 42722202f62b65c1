import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, request } from 'undici';
import { rawRequest } from './helpers/raw-http.js';
import { call, type TestGateway } from './helpers/start-test-gateway.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';
import { TestControlPlane } from './helpers/fleet-control-plane.js';

/**
 * Every answer without content (204, 304) carries no Content-Length (RFC 9110, 8.6) and leaves the connection usable:
 * undici's request() (the client strict SDKs build on) takes it and sends the next request on the same connection.
 * The raw bytes are read too, since a client may paper over a bad header.
 */

interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers: Record<string, string>;
}

/** `first` then `then` over one undici connection: `first` answers `status` with nothing, the connection is kept. */
async function expectNoContentKeepsConnection(origin: string, first: Call, status: 204 | 304, then: Call): Promise<void> {
  const client = new Client(origin);
  let connects = 0;
  let disconnects = 0;
  client.on('connect', () => connects++).on('disconnect', () => disconnects++);
  try {
    const res = await request(`${origin}${first.path}`, { dispatcher: client, method: first.method, headers: first.headers });
    expect(res.statusCode).toBe(status);
    expect(res.headers).not.toHaveProperty('content-length');
    expect(await res.body.text()).toBe('');
    const next = await request(`${origin}${then.path}`, { dispatcher: client, method: then.method, headers: then.headers });
    await next.body.text();
    expect(next.statusCode).toBeLessThan(500);
    expect({ connects, disconnects }).toEqual({ connects: 1, disconnects: 0 });
  } finally {
    await client.close();
  }
}

/** The head of `c` as sent on the wire (no Connection: close, so nothing but the status ends the answer). */
async function rawNoContent(origin: string, c: Call, status: 204 | 304): Promise<Record<string, string>> {
  const lines = [`${c.method} ${c.path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(c.headers).map(([k, v]) => `${k}: ${v}`)];
  const answer = await rawRequest(Number(new URL(origin).port), lines.join('\r\n'));
  expect(answer.status).toBe(status);
  expect(answer.headers).not.toHaveProperty('content-length');
  expect(answer.headers).not.toHaveProperty('transfer-encoding');
  return answer.headers;
}

let g: GatewayWithMock;
let t: TestGateway;
let admin: string;

beforeAll(async () => {
  g = await startGatewayWithMock({ passwordScryptLogN: 12 });
  t = g.t;
  admin = (await t.tenant('nc-a')).admin;
});
afterAll(() => closeGatewayWithMock(g));

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function newPolicy(): Promise<string> {
  const r = await call(t.url, 'POST', '/v1/policies', { token: admin, body: { name: `p${Math.random()}`, type: 'content_filter', risk: 10, rules: { patterns: ['x'] } } });
  expect(r.status, r.text).toBe(200);
  return r.body.id as string;
}

async function newSession(): Promise<string> {
  const email = `u${Date.now()}${Math.floor(Math.random() * 1e6)}@nc.example`;
  const password = 'correct horse battery staple';
  expect((await call(t.url, 'POST', '/admin/users', { token: admin, body: { email, name: 'U', role: 'viewer', password } })).status).toBe(201);
  const r = await call(t.authUrl, 'POST', '/login', { body: { email, password } });
  expect(r.status, r.text).toBe(200);
  return r.body.session_token as string;
}

describe('the governance port', () => {
  it('DELETE /v1/policies/{id}: 204 without Content-Length, the connection kept', async () => {
    const health: Call = { method: 'GET', path: '/health', headers: {} };
    await expectNoContentKeepsConnection(t.url, { method: 'DELETE', path: `/v1/policies/${await newPolicy()}`, headers: bearer(admin) }, 204, health);
    const headers = await rawNoContent(t.url, { method: 'DELETE', path: `/v1/policies/${await newPolicy()}`, headers: bearer(admin) }, 204);
    expect(headers['x-svc-policy']).toMatch(/^v\d+$/);
  });

  it('GET /v1/proxy/models relays an upstream 204 without Content-Length', async () => {
    const models: Call = { method: 'GET', path: '/v1/proxy/models', headers: { ...bearer(admin), 'x-svc-agent-id': 'nc-bot' } };
    g.mock.next({ status: 204 });
    await expectNoContentKeepsConnection(t.url, models, 204, { method: 'GET', path: '/health', headers: {} });
    g.mock.next({ status: 204 });
    const headers = await rawNoContent(t.url, models, 204);
    expect(headers['x-svc-verdict']).toBe('ALLOWED');
  });
});

describe('the authentication service port', () => {
  it('POST /logout: 204 without Content-Length, the connection kept', async () => {
    const health: Call = { method: 'GET', path: '/health', headers: {} };
    await expectNoContentKeepsConnection(t.authUrl, { method: 'POST', path: '/logout', headers: bearer(await newSession()) }, 204, health);
    await rawNoContent(t.authUrl, { method: 'POST', path: '/logout', headers: bearer(await newSession()) }, 204);
  });
});

describe('the fleet control plane', () => {
  let cp: TestControlPlane;
  let sidecar: string;
  beforeAll(async () => {
    cp = await TestControlPlane.start();
    sidecar = (await cp.sidecarTokens.create('nc', null)).token;
  });
  afterAll(() => cp?.close());

  it('GET /v1/fleet/bundle with If-None-Match naming the revision: 304 without Content-Length, the connection kept', async () => {
    const bundle: Call = { method: 'GET', path: '/v1/fleet/bundle', headers: bearer(sidecar) };
    const etag = (await call(cp.url, 'GET', bundle.path, { token: sidecar })).headers.etag as string;
    expect(etag).toMatch(/^"\d+"$/);
    const unchanged: Call = { ...bundle, headers: { ...bundle.headers, 'if-none-match': etag } };
    await expectNoContentKeepsConnection(cp.url, unchanged, 304, bundle);
    const headers = await rawNoContent(cp.url, unchanged, 304);
    expect(headers['etag']).toBe(etag);
  });
});
