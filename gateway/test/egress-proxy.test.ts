import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect as tcpConnect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, getCACertificates, setDefaultCACertificates, type Server as TlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type GatewayConfig, type RunningGateway } from '../src/index.js';
import { call } from './helpers/start-test-gateway.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import { ForwardProxy } from './helpers/forward-proxy.js';
import { TelemetryReceiver } from './helpers/telemetry-receiver.js';
import { CookieClient, freePort } from './helpers/cookie-client.js';
import { startTestIdentityProvider } from './helpers/test-identity-provider.js';
import { poll } from '../../shared/test/helpers/poll.js';
import { selfSignedCert } from '../../shared/test/helpers/self-signed-cert.js';
import { threadingUnderTest } from './helpers/threading-under-test.js';

/**
 * A sidecar inside a company reaches the outside through the company's egress proxy: HTTPS_PROXY, HTTP_PROXY and
 * NO_PROXY (and their lower-case forms), as every HTTP tool honours them. A real forward proxy on loopback relays
 * what the gateway sends out (providers, MCP servers, telemetry, the control plane, the TSA); NO_PROXY bypasses it.
 */
const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] };
type Overrides = Partial<Record<keyof GatewayConfig, string | number | boolean>>;

interface Running {
  gw: RunningGateway;
  close(): Promise<void>;
}

const running: Running[] = [];
let proxy: ForwardProxy;
let mock: MockUpstream;
beforeAll(async () => {
  proxy = await new ForwardProxy().start();
  mock = await new MockUpstream().start();
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
  proxy.seen.length = 0;
  mock.reset();
});
afterAll(async () => {
  await proxy?.close();
  await mock?.close();
});

/** A gateway configured from `env` as a process's environment is read (the proxy variables come from there). */
async function start(env: Record<string, string>, overrides: Overrides = {}): Promise<RunningGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aduana-egress-'));
  const config = loadGatewayConfig(env, { dataDir, port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', upstreamBaseUrl: mock.url, ...threadingUnderTest(), ...overrides });
  const gw = await startGateway({ config, logger: createLogger('test', { level: 'silent' }) });
  running.push({
    gw,
    async close() {
      await gw.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
  return gw;
}

async function operator(gw: RunningGateway, tenantId = 'egress'): Promise<string> {
  await gw.deps.tenants.create(tenantId, 'enterprise');
  return (await gw.deps.tokens.create({ tenantId, role: 'operator', name: 'op', expiresInDays: 1 })).token;
}

function chatCall(gw: RunningGateway, token: string) {
  return call(gw.url, 'POST', '/v1/proxy/chat/completions', { token, headers: { 'x-svc-agent-id': 'egress-bot' }, body: chat });
}

/** A loopback server that records what reaches it and answers `status` (a control plane, a TSA, an MCP server). */
async function recorder(answer: (path: string) => { status: number; body: string }): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      const a = answer(req.url ?? '');
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('the provider call through the egress proxy', () => {
  it('HTTP_PROXY: the call to a plain-http provider is relayed by the forward proxy, and the answer comes back', async () => {
    const gw = await start({ HTTP_PROXY: proxy.url });
    const token = await operator(gw);
    const r = await chatCall(gw, token);
    expect(r.status).toBe(200);
    expect(r.body.choices[0].message.content).toBe('Hello from the mock provider.');
    const origin = new URL(mock.url).origin;
    expect(proxy.to(origin)).toEqual([`POST ${origin}/v1/chat/completions`]);
    expect(mock.received).toHaveLength(1);
    // A second call reuses the proxy (keep-alive to it): relayed too.
    expect((await chatCall(gw, token)).status).toBe(200);
    expect(proxy.to(origin)).toHaveLength(2);
  });

  it('NO_PROXY bypasses it: the provider it names is reached directly', async () => {
    const gw = await start({ HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' });
    const r = await chatCall(gw, await operator(gw));
    expect(r.status).toBe(200);
    expect(mock.received).toHaveLength(1);
    expect(proxy.seen).toEqual([]);
  });

  it('the lower-case forms are read too, and win over the upper-case ones', async () => {
    const gw = await start({ http_proxy: proxy.url, HTTP_PROXY: 'http://127.0.0.1:9', no_proxy: 'example.org', NO_PROXY: '127.0.0.1' });
    const r = await chatCall(gw, await operator(gw));
    expect(r.status).toBe(200);
    expect(proxy.to(new URL(mock.url).origin)).toHaveLength(1);
  });

  it('with no proxy set, nothing goes through one', async () => {
    const gw = await start({});
    expect((await chatCall(gw, await operator(gw))).status).toBe(200);
    expect(mock.received).toHaveLength(1);
    expect(proxy.seen).toEqual([]);
  });

  it('a proxy URL that is not one stops start-up with a message naming the variable and not its value', () => {
    const dataDir = join(tmpdir(), 'never-made');
    expect(() => loadGatewayConfig({ HTTPS_PROXY: 'socks5://user:hunter2@proxy:1080' }, { dataDir })).toThrow(/^HTTPS_PROXY: not an http:\/\/ or https:\/\/ proxy URL$/);
    expect(() => loadGatewayConfig({ https_proxy: 'http://[::1' }, { dataDir })).toThrow(/^https_proxy: not a proxy URL/);
    // A bare host:port is an http:// proxy, as curl and Go read it.
    expect(loadGatewayConfig({ HTTP_PROXY: 'proxy.corp:3128' }, { dataDir }).httpProxy).toBe('proxy.corp:3128');
  });
});

describe('an https provider through HTTPS_PROXY (a CONNECT tunnel)', () => {
  let tls: TlsServer;
  let tlsOrigin = '';
  let authed: ForwardProxy;
  beforeAll(async () => {
    // The provider speaks TLS with a certificate for localhost, trusted by this process as a company's CA would be.
    const { cert, key } = selfSignedCert({ altNames: ['localhost'] });
    setDefaultCACertificates([...getCACertificates('default'), cert]);
    const mockPort = Number(new URL(mock.url).port);
    tls = createTlsServer({ cert, key }, (socket) => {
      const plain = tcpConnect(mockPort, '127.0.0.1');
      socket.pipe(plain).pipe(socket);
      socket.on('error', () => plain.destroy());
      plain.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    tlsOrigin = `localhost:${(tls.address() as AddressInfo).port}`;
    authed = await new ForwardProxy().start({ user: 'sidecar', password: 'p@ss word' });
  });
  afterAll(async () => {
    await authed?.close();
    await new Promise((resolve) => tls?.close(resolve));
  });

  it('the provider is reached through a tunnel the proxy opened, with the credentials of the proxy URL', async () => {
    const proxyUrl = new URL(authed.url);
    proxyUrl.username = 'sidecar';
    proxyUrl.password = encodeURIComponent('p@ss word');
    const gw = await start({ HTTPS_PROXY: proxyUrl.href }, { upstreamBaseUrl: `https://${tlsOrigin}/v1` });
    const r = await chatCall(gw, await operator(gw));
    expect(r.status).toBe(200);
    expect(r.body.choices[0].message.content).toBe('Hello from the mock provider.');
    expect(authed.seen).toEqual([`CONNECT ${tlsOrigin}`]);
    expect(mock.received.map((m) => m.path)).toEqual(['/chat/completions']);
    // The proxy's credentials go to the proxy only.
    expect(mock.received[0]!.headers['proxy-authorization']).toBeUndefined();
  });

  it('a wrong password is the provider being unavailable (503), not a call that went around the proxy', async () => {
    const proxyUrl = new URL(authed.url);
    proxyUrl.username = 'sidecar';
    proxyUrl.password = 'wrong';
    const gw = await start({ HTTPS_PROXY: proxyUrl.href }, { upstreamBaseUrl: `https://${tlsOrigin}/v1` });
    const r = await chatCall(gw, await operator(gw));
    expect(r.status).toBe(503);
    expect(mock.received).toEqual([]);
  });

  it('HTTP_PROXY serves https destinations too when HTTPS_PROXY is not set', async () => {
    const gw = await start({ HTTP_PROXY: proxy.url }, { upstreamBaseUrl: `https://${tlsOrigin}/v1` });
    expect((await chatCall(gw, await operator(gw))).status).toBe(200);
    expect(proxy.seen).toEqual([`CONNECT ${tlsOrigin}`]);
  });
});

describe('every other outbound connection through the egress proxy', () => {
  it('MCP servers', async () => {
    const server = await recorder(() => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'crm', version: '1' } } }) }));
    try {
      const gw = await start({ HTTP_PROXY: proxy.url }, { mcpUpstreams: JSON.stringify({ crm: `${server.url}/mcp` }) });
      const r = await call(gw.url, 'POST', '/v1/mcp/crm', {
        token: await operator(gw),
        headers: { 'x-svc-agent-id': 'egress-bot', accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      });
      expect(r.status).toBe(200);
      expect(r.body.result.serverInfo.name).toBe('crm');
      expect(proxy.to(server.url)).toEqual([`POST ${server.url}/mcp`]);
      expect(server.seen).toEqual(['POST /mcp']);
    } finally {
      await server.close();
    }
  });

  it('the telemetry exporters (OTLP collector, Sentry-compatible tracker)', async () => {
    const rx = await new TelemetryReceiver().start();
    try {
      const gw = await start({ HTTP_PROXY: proxy.url }, { otlpEndpoint: rx.url, sentryDsn: rx.dsn, telemetryFlushMs: 50 });
      const r = await call(gw.url, 'POST', '/v1/telemetry/ingest', { token: await operator(gw), body: { agentId: 'egress-bot', traceId: 'tr-egress', log: { level: 'error', message: 'through the proxy' } } });
      expect(r.status).toBe(200);
      await poll(() => rx.logs.some((l) => l.attributes['trace_id'] === 'tr-egress') && rx.errors.some((e) => e.tags['trace_id'] === 'tr-egress'), { what: 'the log and the error at the receiver' });
      const relayed = proxy.to(rx.url);
      expect(relayed).toContain(`POST ${rx.url}/v1/logs`);
      expect(relayed.some((s) => /^POST .*\/api\/\d+\/envelope\//.test(s))).toBe(true);
    } finally {
      await rx.close();
    }
  });

  it('the control plane (a sidecar asking for its bundle)', async () => {
    const control = await recorder(() => ({ status: 503, body: '{"error":{"message":"not yet"}}' }));
    try {
      await start({ HTTP_PROXY: proxy.url }, { controlPlaneUrl: control.url, sidecarToken: 'adu_sct_test', fleetRetryBaseMs: 50, fleetRetryMaxMs: 100 });
      await poll(() => proxy.to(control.url).length > 0, { what: 'a request to the control plane at the proxy' });
      expect(proxy.to(control.url)[0]).toBe(`GET ${control.url}/v1/fleet/bundle`);
      expect(control.seen[0]).toBe('GET /v1/fleet/bundle');
    } finally {
      await control.close();
    }
  });

  it('anchoring (the RFC 3161 time-stamp authority)', async () => {
    const tsa = await recorder(() => ({ status: 503, body: '' }));
    try {
      const gw = await start({ HTTP_PROXY: proxy.url }, { anchorTsaUrl: `${tsa.url}/tsa`, checkpointEvery: 1, anchorRetryBaseMs: 50, anchorRetryMaxMs: 100 });
      const r = await call(gw.url, 'POST', '/v1/events', { token: await operator(gw), body: { event_type: 'note', payload: { text: 'anchored' } } });
      expect(r.status).toBe(200);
      // Both ends: the proxy logs the request before it forwards it.
      await poll(() => proxy.to(tsa.url).length > 0 && tsa.seen.length > 0, { what: 'a time-stamp request at the proxy and at the TSA' });
      expect(proxy.to(tsa.url)[0]).toBe(`POST ${tsa.url}/tsa`);
      expect(tsa.seen[0]).toBe('POST /tsa');
    } finally {
      await tsa.close();
    }
  });

  it('the identity provider (OpenID Connect sign-in: discovery, the token exchange, its keys)', async () => {
    const port = await freePort();
    const callback = `http://127.0.0.1:${port}/auth/idp/callback`;
    const op = await startTestIdentityProvider(callback);
    try {
      const gw = await start(
        { HTTP_PROXY: proxy.url },
        { authPort: port, oidcIssuer: op.issuer, oidcClientId: 'aduana-console', oidcClientSecret: 'test-secret-0123456789abcdef0123456789', oidcRedirectUri: callback, oidcAllowInsecureHttp: true, passwordScryptLogN: 12 },
      );
      op.account = { sub: 'sub-egress', email: 'eve@idp.example', email_verified: true, name: 'Eve Egress' };
      const browser = new CookieClient();
      const begin = await browser.get(`${gw.authUrl}/auth/idp`);
      expect(begin.status, begin.text).toBe(302);
      const { stopped } = await browser.follow(begin.headers.location as string, callback);
      const done = await browser.get(stopped as string);
      expect(done.status, done.text).toBe(200);
      // The sidecar's own requests to the provider went through the proxy; the browser's did not (it is not the gateway).
      const relayed = proxy.to(new URL(op.issuer).origin).map((s) => s.replace(op.issuer, ''));
      expect(relayed[0]).toBe('GET /.well-known/openid-configuration');
      expect(relayed.some((s) => s.startsWith('POST ') && s.includes('token'))).toBe(true);
      expect(relayed.some((s) => s.startsWith('GET ') && s.includes('jwks'))).toBe(true);
    } finally {
      await op.close();
    }
  });
});
