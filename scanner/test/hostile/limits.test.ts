import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import { ERRORS } from '../../src/errors.js';
import type { RunningScanner } from '../../src/server.js';
import { post, sleep, startHostileScanner, type Overrides } from './hostile-scanner.js';
import { poll } from '../../../shared/test/helpers/poll.js';

/** Rate limits that a client cannot sidestep, a cap on assessments in flight, and abandoned assessments stopped. */
let site: FixtureServer;
let scanner: RunningScanner | undefined;
/** Page requests the site holds until the test lets them go. */
let held: (() => void)[] = [];
let holdPages = false;

beforeAll(async () => {
  site = await startFixture((req, res) => {
    const answer = (): void => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html lang="en"><head><title>t</title></head><body><h1>hello</h1></body></html>');
    };
    if (holdPages && req.url?.startsWith('/page') === true) held.push(answer);
    else answer();
  });
});

afterEach(async () => {
  holdPages = false;
  for (const release of held) release();
  held = [];
  await scanner?.close();
  scanner = undefined;
});

afterAll(async () => {
  await site?.close();
});

async function start(overrides: Overrides): Promise<RunningScanner> {
  scanner = await startHostileScanner(overrides);
  return scanner;
}

describe('per-client limits', () => {
  it('IPv6 clients are keyed by their /64: a fresh address of the same /64 gets no fresh budget', async () => {
    const s = await start({ ratePerIpPerMinute: 2, trustProxy: '1' });
    const from = (ip: string) => post(s, '/api/super-scan', { url: `${site.origin}/` }, { 'x-forwarded-for': ip });
    expect((await from('2001:db8:1:2::1')).status).toBe(200);
    expect((await from('2001:db8:1:2::2')).status).toBe(200);
    const third = await from('2001:db8:1:2:ffff:1:2:3');
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ error: ERRORS.rate_limited_ip.message });
    // Another /64 has its own budget.
    expect((await from('2001:db8:1:3::1')).status).toBe(200);
  });

  it('with one trusted proxy hop, a client-supplied leftmost X-Forwarded-For entry is not the client address', async () => {
    const s = await start({ ratePerIpPerMinute: 2, trustProxy: '1' });
    const spoofed = (n: number) => post(s, '/api/super-scan', { url: `${site.origin}/` }, { 'x-forwarded-for': `10.9.9.${String(n)}, 203.0.113.5` });
    expect((await spoofed(1)).status).toBe(200);
    expect((await spoofed(2)).status).toBe(200);
    expect((await spoofed(3)).status).toBe(429);
  });

  it('with trusted proxy CIDRs, the client is the first untrusted address from the right', async () => {
    const s = await start({ ratePerIpPerMinute: 2, trustProxy: '127.0.0.0/8, 10.0.0.0/8' });
    const via = (spoof: string) => post(s, '/api/super-scan', { url: `${site.origin}/` }, { 'x-forwarded-for': `${spoof}, 203.0.113.7, 10.1.1.1` });
    expect((await via('192.0.2.1')).status).toBe(200);
    expect((await via('192.0.2.2')).status).toBe(200);
    expect((await via('192.0.2.3')).status).toBe(429);
  });

  it('a bad SCANNER_TRUST_PROXY stops start-up', async () => {
    await expect(start({ trustProxy: 'not-a-cidr' })).rejects.toThrow(/SCANNER_TRUST_PROXY/);
  });
});

describe('per-target limit', () => {
  it('counts victim.test and victim.test. (and upper case) as one host', async () => {
    const s = await start({ ratePerTargetPerHour: 2 });
    const port = String(site.port);
    expect((await post(s, '/api/super-scan', { url: `http://victim.test:${port}/` })).status).toBe(200);
    expect((await post(s, '/api/super-scan', { url: `http://victim.test.:${port}/` })).status).toBe(200);
    const third = await post(s, '/api/super-scan', { url: `http://VICTIM.TEST.:${port}/` });
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ error: ERRORS.rate_limited_target.message });
  });

  it('takes the target token only for a valid, fetchable target: refused requests cannot lock a host out', async () => {
    const s = await start({ ratePerTargetPerHour: 2 });
    for (let i = 0; i < 5; i++) {
      expect((await post(s, '/api/super-scan', { url: 'http://locked.test:0/' })).status).toBe(400);
      // A name that does not resolve: nothing was fetched.
      expect((await post(s, '/api/super-scan', { url: 'http://locked.invalid/' })).status).toBe(502);
    }
    expect((await post(s, '/api/super-scan', { url: `http://locked.test:${String(site.port)}/` })).status).toBe(200);
  });
});

describe('assessments in flight', () => {
  it('past the cap the service answers 429 with Retry-After, and the held assessments still complete', async () => {
    const s = await start({ maxInFlight: 2 });
    holdPages = true;
    const first = post(s, '/api/super-scan', { url: `${site.origin}/page1` });
    const second = post(s, '/api/super-scan', { url: `${site.origin}/page2` });
    await poll(() => held.length === 2, { what: 'both assessments to be held at the site', timeoutMs: 5000 });
    const third = await Promise.race([post(s, '/api/super-scan', { url: `${site.origin}/page3` }), sleep(3000).then(() => undefined)]);
    expect(third?.status).toBe(429);
    expect(third?.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(third?.body).toEqual({ error: ERRORS.too_many_in_flight.message });
    holdPages = false;
    for (const release of held) release();
    held = [];
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    // The slots are free again.
    expect((await post(s, '/api/super-scan', { url: `${site.origin}/page4` })).status).toBe(200);
  });

  it('a client that goes away stops its assessment: the site is asked for nothing more', async () => {
    const s = await start({});
    holdPages = true;
    const before = site.requests.length;
    const gone = new AbortController();
    const pending = fetch(`${s.url}/api/super-scan`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.origin}/page-abandoned` }),
      signal: gone.signal,
    }).catch(() => undefined);
    await poll(() => held.length === 1, { what: 'the assessment to be held at the site', timeoutMs: 5000 });
    gone.abort();
    await pending;
    await sleep(200);
    holdPages = false;
    for (const release of held) release();
    held = [];
    await sleep(1500);
    expect(site.requests.slice(before).map((r) => r.path)).toEqual(['/page-abandoned']);
  });
});
