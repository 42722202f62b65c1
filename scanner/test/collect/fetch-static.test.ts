import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultHostLookup, NetGuard, type HostLookup } from '@aduana/shared';
import { COLLECT_DEFAULTS } from '../../src/collect/collect-snapshot.js';
import { fetchStatic, type StaticFetchOptions } from '../../src/collect/fetch-static.js';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';

const MiB = 1024 * 1024;
const TEXT = 'Olá, mundo! '.repeat(2000);

let site: FixtureServer;
let other: FixtureServer; // on 127.0.0.2: outside the allow-list below, so it must never see a connection
const guards: NetGuard[] = [];

function options(overrides: Partial<StaticFetchOptions> = {}): StaticFetchOptions {
  // rebound.test stands for a public-looking name whose DNS answer points inside (here at the 127.0.0.2 listener).
  const lookup: HostLookup = async (name) => (name === 'rebound.test' ? [{ address: '127.0.0.2', family: 4 }] : defaultHostLookup(name));
  const guard = new NetGuard({ allowPrivate: ['127.0.0.1/32'], lookup });
  guards.push(guard);
  return { guard, timeoutMs: 5_000, maxBodyBytes: MiB, maxRedirects: 5, userAgent: COLLECT_DEFAULTS.userAgent, ...overrides };
}

beforeAll(async () => {
  other = await startFixture((_req, res) => res.end('private'), { host: '127.0.0.2' });
  site = await startFixture((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const loop = /^\/loop\/(\d+)$/.exec(path);
    const chain = /^\/chain\/(\d+)$/.exec(path);
    if (path === '/plain') {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<p>${TEXT}</p>`);
    } else if (path === '/to-private') {
      res.writeHead(302, { location: `http://127.0.0.2:${String(other.port)}/secret` }).end();
    } else if (path === '/to-ten') {
      res.writeHead(301, { location: 'http://10.0.0.1/' }).end();
    } else if (path === '/to-rebound') {
      res.writeHead(307, { location: `http://rebound.test:${String(other.port)}/` }).end();
    } else if (path === '/to-ftp') {
      res.writeHead(302, { location: 'ftp://127.0.0.1/file' }).end();
    } else if (loop) {
      res.writeHead(302, { location: `/loop/${String(Number(loop[1]) + 1)}` }).end();
    } else if (chain) {
      const n = Number(chain[1]);
      if (n === 0) res.end('arrived');
      else res.writeHead(308, { location: `/chain/${String(n - 1)}` }).end();
    } else if (path === '/set-cookie') {
      res.writeHead(302, { location: '/echo', 'set-cookie': ['session=abc; Path=/; HttpOnly', 'theme=dark; Path=/'] }).end();
    } else if (path === '/echo') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(req.headers));
    } else if (path === '/big') {
      res.setHeader('content-type', 'text/plain');
      res.end(Buffer.alloc(3 * MiB, 'a'));
    } else if (path.startsWith('/enc/')) {
      const coding = path.slice(5);
      const raw = Buffer.from(TEXT);
      const body = coding === 'gzip' ? gzipSync(raw) : coding === 'br' ? brotliCompressSync(raw) : coding === 'deflate' ? deflateSync(raw) : deflateRawSync(raw);
      const header = coding === 'deflate-raw' ? 'deflate' : coding;
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-encoding': header, 'content-length': body.length });
      res.end(body);
    } else if (path === '/corrupt') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(Buffer.from('this is not gzip at all'));
    } else if (path === '/bomb') {
      const body = gzipSync(Buffer.alloc(64 * MiB)); // ~64 KB on the wire
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(body);
    } else if (path === '/latin1') {
      res.setHeader('content-type', 'text/plain; charset=ISO-8859-1');
      res.end(Buffer.from('café crème', 'latin1'));
    } else if (path === '/meta-charset') {
      res.setHeader('content-type', 'text/html');
      res.end(Buffer.concat([Buffer.from('<html><head><meta charset="windows-1252"></head><body>'), Buffer.from('naïve', 'latin1')]));
    } else if (path === '/image') {
      res.setHeader('content-type', 'image/png');
      res.end(Buffer.alloc(1000, 1));
    } else if (path === '/hang') {
      // never answers: the time-out must end the wait
    } else if (path === '/slow-body') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part ');
    } else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
});

afterEach(async () => {
  await Promise.all(guards.splice(0).map((g) => g.close()));
});

afterAll(async () => {
  await Promise.all([site.close(), other.close()]);
});

describe('fetchStatic', () => {
  it('fetches a page through the guard and reports what it saw', async () => {
    const { probe, failure } = await fetchStatic(`${site.origin}/plain`, options());
    expect(failure).toBeUndefined();
    expect(probe.status).toBe(200);
    expect(probe.contentType).toBe('text/html');
    expect(probe.body).toBe(`<p>${TEXT}</p>`);
    expect(probe.bodyBytes).toBe(Buffer.byteLength(`<p>${TEXT}</p>`));
    expect(probe.wireBytes).toBe(probe.bodyBytes);
    expect(probe.truncated).toBe(false);
    expect(probe.error).toBeUndefined();
    expect(probe.finalUrl).toBe(`${site.origin}/plain`);
    expect(probe.redirectChain).toEqual([`${site.origin}/plain`]);
    expect(probe.ttfbMs).toBeGreaterThanOrEqual(0);
    expect(probe.totalMs).toBeGreaterThanOrEqual(probe.ttfbMs);
    const sent = site.requests.at(-1)?.headers;
    expect(sent?.['user-agent']).toBe('aduana-scanner/0.1 (+https://github.com/aduana; read-only assessment)');
    expect(sent?.authorization).toBeUndefined();
    expect(sent?.cookie).toBeUndefined();
  });

  it('re-checks every redirect hop and never connects to a refused address', async () => {
    const { probe, failure } = await fetchStatic(`${site.origin}/to-private`, options());
    expect(probe.error).toBe('blocked');
    expect(probe.status).toBeNull();
    expect(probe.redirectChain).toEqual([`${site.origin}/to-private`, `http://127.0.0.2:${String(other.port)}/secret`]);
    expect((failure as { code?: string }).code).toBe('blocked');
    expect(other.connections()).toBe(0);
    expect(other.requests).toHaveLength(0);
  });

  it.each([
    ['/to-ten', 'a private literal'],
    ['/to-rebound', 'a name resolving to a refused loopback address'],
    ['/to-ftp', 'a non-http scheme'],
  ])('refuses a redirect (%s) to %s', async (path) => {
    const { probe } = await fetchStatic(`${site.origin}${path}`, options());
    expect(probe.error).toBe('blocked');
    expect(probe.redirectChain).toHaveLength(2);
    expect(other.connections()).toBe(0);
  });

  it('follows up to the redirect limit and stops after it', async () => {
    const ok = await fetchStatic(`${site.origin}/chain/5`, options());
    expect(ok.probe.status).toBe(200);
    expect(ok.probe.body).toBe('arrived');
    expect(ok.probe.redirectChain).toHaveLength(6);
    expect(ok.probe.finalUrl).toBe(`${site.origin}/chain/0`);

    const before = site.requests.length;
    const { probe } = await fetchStatic(`${site.origin}/loop/0`, options());
    expect(probe.error).toBe('redirect_limit');
    expect(probe.status).toBe(302);
    expect(probe.redirectChain).toEqual([0, 1, 2, 3, 4, 5].map((n) => `${site.origin}/loop/${String(n)}`));
    expect(site.requests.length - before).toBe(6);
  });

  it('returns a 3xx as the answer when told to follow nothing', async () => {
    const { probe } = await fetchStatic(`${site.origin}/chain/2`, options({ maxRedirects: 0 }));
    expect(probe.status).toBe(308);
    expect(probe.headers.location).toBe('/chain/1');
    expect(probe.error).toBeUndefined();
  });

  it('keeps no cookies: a Set-Cookie on a redirect is not sent to the next hop', async () => {
    const { probe } = await fetchStatic(`${site.origin}/set-cookie`, options());
    expect(probe.status).toBe(200);
    const echoed = JSON.parse(probe.body) as Record<string, string>;
    expect(echoed['user-agent']).toContain('aduana-scanner/0.1');
    expect(echoed).not.toHaveProperty('cookie');
  });

  it('keeps Set-Cookie apart from the other headers', async () => {
    const { probe } = await fetchStatic(`${site.origin}/set-cookie`, options({ maxRedirects: 0 }));
    expect(probe.setCookies).toEqual(['session=abc; Path=/; HttpOnly', 'theme=dark; Path=/']);
    expect(probe.headers).not.toHaveProperty('set-cookie');
  });

  it('cuts an oversized body at the cap and marks it truncated instead of failing', async () => {
    const { probe } = await fetchStatic(`${site.origin}/big`, options({ maxBodyBytes: MiB }));
    expect(probe.status).toBe(200);
    expect(probe.error).toBeUndefined();
    expect(probe.truncated).toBe(true);
    expect(probe.bodyBytes).toBe(MiB);
    expect(probe.body).toHaveLength(MiB);
  });

  it.each([
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['deflate', 'deflate'],
    ['deflate-raw', 'deflate'], // raw deflate labelled deflate, as some servers send it
  ])('decodes %s and counts the compressed bytes on the wire', async (path, coding) => {
    const { probe } = await fetchStatic(`${site.origin}/enc/${path}`, options());
    expect(probe.body).toBe(TEXT);
    expect(probe.error).toBeUndefined();
    expect(probe.contentEncoding).toBe(coding);
    expect(probe.bodyBytes).toBe(Buffer.byteLength(TEXT));
    expect(probe.wireBytes).toBeGreaterThan(0);
    expect(probe.wireBytes).toBeLessThan(probe.bodyBytes / 10);
    expect(site.requests.at(-1)?.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('keeps what decoded from a corrupt stream and marks the probe network', async () => {
    const { probe } = await fetchStatic(`${site.origin}/corrupt`, options());
    expect(probe.status).toBe(200);
    expect(probe.error).toBe('network');
    expect(probe.body).toBe('');
  });

  it('stops decompressing at the cap (a gzip bomb costs at most the cap)', async () => {
    const { probe } = await fetchStatic(`${site.origin}/bomb`, options({ maxBodyBytes: MiB }));
    expect(probe.truncated).toBe(true);
    expect(probe.bodyBytes).toBe(MiB);
    expect(probe.wireBytes).toBeLessThan(64 * 1024 + 1024);
  });

  it('decodes by the declared charset, or the HTML meta charset', async () => {
    expect((await fetchStatic(`${site.origin}/latin1`, options())).probe.body).toBe('café crème');
    expect((await fetchStatic(`${site.origin}/meta-charset`, options())).probe.body).toContain('naïve');
  });

  it('counts but does not decode a non-text body', async () => {
    const { probe } = await fetchStatic(`${site.origin}/image`, options());
    expect(probe.contentType).toBe('image/png');
    expect(probe.body).toBe('');
    expect(probe.bodyBytes).toBe(1000);
  });

  it('gives up on a target that does not answer, as timeout', async () => {
    const { probe } = await fetchStatic(`${site.origin}/hang`, options({ timeoutMs: 300 }));
    expect(probe.error).toBe('timeout');
    expect(probe.status).toBeNull();
  });

  it('keeps the headers and the part of a body that stalls, marked timeout and truncated', async () => {
    const { probe } = await fetchStatic(`${site.origin}/slow-body`, options({ timeoutMs: 300 }));
    expect(probe.error).toBe('timeout');
    expect(probe.status).toBe(200);
    expect(probe.body).toBe('first part ');
    expect(probe.truncated).toBe(true);
  });

  it('reports a closed port as refused', async () => {
    const closed = await startFixture((_req, res) => res.end());
    const url = `${closed.origin}/`;
    await closed.close();
    const { probe } = await fetchStatic(url, options());
    expect(probe.error).toBe('refused');
  });

  it('reports a refused first destination as blocked, without connecting', async () => {
    const { probe, failure } = await fetchStatic(`http://127.0.0.2:${String(other.port)}/`, options());
    expect(probe.error).toBe('blocked');
    expect((failure as { code?: string }).code).toBe('blocked');
    expect(other.connections()).toBe(0);
  });

  it("rejects with the caller's reason when the caller cancels", async () => {
    const controller = new AbortController();
    const pending = fetchStatic(`${site.origin}/hang`, options({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(pending).rejects.toThrow('caller gave up');
  });
});
