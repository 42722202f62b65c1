import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import { removeDataDir, startKeyedScanner, type KeyedScanner } from '../helpers/keyed-scanner.js';

/** A recorded assessment of a private, loopback or metadata address is 400 and spends none of the daily quota. */
let site: FixtureServer;
let sc: KeyedScanner;

beforeAll(async () => {
  site = await startFixture((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>ok</title>'));
  sc = await startKeyedScanner({ keyDailyQuota: 1, allowPrivate: '127.0.0.1/32' });
});

afterAll(async () => {
  await sc?.close();
  await site?.close();
  if (sc) removeDataDir(sc.dataDir);
});

describe('recorded assessments of refused destinations', () => {
  it('400 blocked, nothing recorded, the one unit of quota still there', async () => {
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://127.0.0.2/', 'http://[::ffff:7f00:2]/', 'http://0x7f000002/']) {
      const res = await sc.call('POST', '/api/v1/scans', { body: { url } });
      expect(res.status, url).toBe(400);
      expect(Object.keys(res.body as object)).toEqual(['error']);
    }
    expect((await sc.call('GET', '/api/v1/scans')).body.items).toEqual([]);
    expect((await sc.call('POST', '/api/v1/scans', { body: { url: `${site.origin}/` } })).status).toBe(200);
    const over = await sc.call('POST', '/api/v1/scans', { body: { url: `${site.origin}/` } });
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  });
});
