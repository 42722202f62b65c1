import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startKeyedScanner, type KeyedScanner } from './helpers/keyed-scanner.js';

/**
 * Creating a webhook whose URL cannot be accepted answers 400 with the reason, and stores nothing. The README's example
 * (`https://hooks.example.org/x`) on a machine whose DNS cannot resolve the name used to be told "must be a public https
 * URL", which it is: a name that does not resolve now says so. The scanner here has no private range allowed, as in
 * production.
 */
let sc: KeyedScanner;
beforeAll(async () => {
  sc = await startKeyedScanner({ schedulerTickMs: 3_600_000, allowPrivate: '' });
});
afterAll(async () => {
  await sc?.close();
  if (sc) removeDataDir(sc.dataDir);
});

async function refusal(url: string): Promise<string> {
  const res = await sc.call('POST', '/api/v1/webhooks', { body: { url, minScoreDelta: 5 } });
  expect(res.status, url).toBe(400);
  expect(Object.keys(res.body as object)).toEqual(['error']);
  return res.body.error as string;
}

describe('POST /api/v1/webhooks: each refused URL names its reason', () => {
  it('a host name that does not resolve (RFC 6761 .invalid never does): says so, not that the URL is not public https', async () => {
    const message = await refusal('https://hooks.example.invalid/x');
    expect(message).toMatch(/does not resolve/);
    expect(message).not.toMatch(/public https URL/);
  });

  it('a private, loopback or reserved destination: says so', async () => {
    expect(await refusal('https://127.0.0.1/x')).toMatch(/private, loopback or reserved address/);
    expect(await refusal('https://[::1]/x')).toMatch(/private, loopback or reserved address/);
  });

  it('not https, or with credentials or a fragment: the URL must be https', async () => {
    for (const url of ['http://hooks.example.org/x', 'https://user:pw@hooks.example.org/x', 'https://hooks.example.org/x#frag', 'not a url']) {
      expect(await refusal(url)).toMatch(/https URL/);
    }
  });

  it('nothing was stored', async () => {
    expect((await sc.call('GET', '/api/v1/webhooks')).body.items).toEqual([]);
  });
});
