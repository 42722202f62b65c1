import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NetGuard, type HostLookup } from '@aduana/shared';
import { COLLECT_DEFAULTS } from '../../src/collect/collect-snapshot.js';
import { probeHttpsRedirect } from '../../src/collect/https-redirect-probe.js';
import { probeTls } from '../../src/collect/tls-probe.js';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import { selfSignedCert, type SelfSignedCert } from '../../../shared/test/helpers/self-signed-cert.js';

const DAY = 86_400_000;
const notAfter = new Date(Date.UTC(2030, 0, 1));
const notBefore = new Date(Date.UTC(2025, 0, 1));
const now = (): Date => new Date(Date.UTC(2029, 11, 22, 12)); // 9.5 days before notAfter

let cert: SelfSignedCert;
let expired: SelfSignedCert;
let secure: FixtureServer;
let expiredServer: FixtureServer;
const guards: NetGuard[] = [];

// site.test is on the certificate; other.test is not. Both point at the loopback listener.
const lookup: HostLookup = async () => [{ address: '127.0.0.1', family: 4 }];

function guard(allow: string[] = ['127.0.0.1/32']): NetGuard {
  const g = new NetGuard({ allowPrivate: allow, lookup, connect: { rejectUnauthorized: false } });
  guards.push(g);
  return g;
}

beforeAll(async () => {
  cert = selfSignedCert({ commonName: 'site.test', altNames: ['site.test', '127.0.0.1'], notBefore, notAfter });
  expired = selfSignedCert({ commonName: 'site.test', altNames: ['site.test'], notBefore, notAfter: new Date(Date.now() - 2 * DAY) });
  secure = await startFixture((_req, res) => res.end('secure'), { tls: cert });
  expiredServer = await startFixture((_req, res) => res.end('old'), { tls: expired });
});

afterEach(async () => {
  await Promise.all(guards.splice(0).map((g) => g.close()));
});

afterAll(async () => {
  await Promise.all([secure.close(), expiredServer.close()]);
});

describe('probeTls', () => {
  it('reports a self-signed certificate as not authorized, with its OpenSSL code and details', async () => {
    const info = await probeTls(new URL(`https://site.test:${String(secure.port)}/`), { guard: guard(), timeoutMs: 5_000, now });
    expect(info.error).toBeUndefined();
    expect(info.authorized).toBe(false);
    expect(info.authorizationError).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(info.protocol).toMatch(/^TLSv1\.[23]$/);
    expect(info.subject).toBe('CN=site.test');
    expect(info.issuer).toBe('CN=site.test');
    expect(info.subjectAltNames).toEqual(['DNS:site.test', 'IP Address:127.0.0.1']);
    expect(info.validFrom).toBe('2025-01-01T00:00:00.000Z');
    expect(info.validTo).toBe('2030-01-01T00:00:00.000Z');
    expect(info.daysRemaining).toBe(9);
  });

  it('authorizes a certificate that chains to a trusted root and names the host', async () => {
    const info = await probeTls(new URL(`https://site.test:${String(secure.port)}/`), { guard: guard(), timeoutMs: 5_000, ca: [cert.cert] });
    expect(info.authorized).toBe(true);
    expect(info.authorizationError).toBeUndefined();
  });

  it('catches a host name the certificate does not cover, even when it is trusted', async () => {
    const info = await probeTls(new URL(`https://other.test:${String(secure.port)}/`), { guard: guard(), timeoutMs: 5_000, ca: [cert.cert] });
    expect(info.authorized).toBe(false);
    expect(info.authorizationError).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('reports an expired certificate and negative days remaining', async () => {
    const info = await probeTls(new URL(`https://site.test:${String(expiredServer.port)}/`), {
      guard: guard(),
      timeoutMs: 5_000,
      ca: [expired.cert],
    });
    expect(info.authorized).toBe(false);
    expect(info.authorizationError).toBe('CERT_HAS_EXPIRED');
    expect(info.daysRemaining).toBeLessThan(0);
  });

  it('goes through the guard: no handshake with a refused address', async () => {
    const before = secure.connections();
    const info = await probeTls(new URL(`https://site.test:${String(secure.port)}/`), { guard: guard([]), timeoutMs: 5_000 });
    expect(info.error).toBe('blocked');
    expect(info.authorized).toBe(false);
    expect(info.validTo).toBe('');
    expect(secure.connections()).toBe(before);
  });

  it('reports a port with no TLS listener as refused', async () => {
    const closed = await startFixture((_req, res) => res.end());
    const port = closed.port;
    await closed.close();
    const info = await probeTls(new URL(`https://site.test:${String(port)}/`), { guard: guard(), timeoutMs: 5_000 });
    expect(info.error).toBe('refused');
  });
});

describe('probeHttpsRedirect', () => {
  let plain: FixtureServer;
  let target = '';
  beforeAll(async () => {
    plain = await startFixture((_req, res) => {
      if (target === '') res.end('no redirect');
      else res.writeHead(301, { location: target }).end();
    });
  });
  afterAll(async () => {
    await plain.close();
  });

  const probe = (host: string): ReturnType<typeof probeHttpsRedirect> =>
    probeHttpsRedirect(new URL(`https://${host}:${String(secure.port)}/page`), {
      guard: guard(),
      timeoutMs: 5_000,
      maxBodyBytes: 1024,
      userAgent: COLLECT_DEFAULTS.userAgent,
      httpPort: plain.port,
    });

  it('detects http:// answering with a redirect to https:// on the same host', async () => {
    target = `https://site.test:${String(secure.port)}/`;
    const info = await probe('site.test');
    expect(info).toEqual({ url: `http://site.test:${String(plain.port)}/`, redirectsToHttps: true, status: 301, location: target });
    expect(plain.requests.at(-1)?.path).toBe('/');
  });

  it('does not count a redirect to another host, or to http, or no redirect', async () => {
    target = 'https://elsewhere.test/';
    expect((await probe('site.test')).redirectsToHttps).toBe(false);
    target = `http://site.test:${String(plain.port)}/other`;
    expect((await probe('site.test')).redirectsToHttps).toBe(false);
    target = '';
    const none = await probe('site.test');
    expect(none.redirectsToHttps).toBe(false);
    expect(none.status).toBe(200);
  });

  it('follows nothing: only the first hop is asked', async () => {
    target = `https://site.test:${String(secure.port)}/`;
    const before = secure.requests.length;
    await probe('site.test');
    expect(secure.requests.length).toBe(before);
  });
});
