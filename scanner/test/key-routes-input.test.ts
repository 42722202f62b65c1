import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startKeyedScanner, type KeyedScanner } from './helpers/keyed-scanner.js';

/** Bad input on every KEY route: the documented status, an {error} body, and nothing stored. */
let sc: KeyedScanner;

beforeAll(async () => {
  sc = await startKeyedScanner({ schedulerTickMs: 3_600_000 });
});

afterAll(async () => {
  await sc?.close();
  if (sc) removeDataDir(sc.dataDir);
});

const UUID = '3b7e2c1a-9f4d-4e6b-8a2c-5d1e0f9a7b63';
const BIG = JSON.stringify({ url: `https://example.org/?q=${'x'.repeat(3 * 1024 * 1024)}` });

async function expectError(method: string, path: string, status: number, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<void> {
  const res = await sc.call(method, path, options);
  expect(res.status, `${method} ${path} ${JSON.stringify(options.body ?? options.raw?.slice(0, 40) ?? '')}`).toBe(status);
  expect(Object.keys(res.body as object)).toEqual(['error']);
  expect(typeof res.body.error).toBe('string');
}

describe('bad input on the KEY routes', () => {
  it('extra properties and out-of-range or mistyped fields: 400', async () => {
    await expectError('POST', '/api/v1/scans', 400, { body: { url: 'https://example.org/', extra: 1 } });
    await expectError('POST', '/api/v1/scans', 400, { body: { url: 'https://example.org/', profile: 'shop' } });
    await expectError('POST', '/api/v1/scans', 400, { body: { url: 'x'.repeat(2049) } });
    await expectError('POST', '/api/v1/scans', 400, { body: {} });
    for (const cadenceHours of [0, 721, 1.5, '24', -1]) await expectError('POST', '/api/v1/monitors', 400, { body: { url: 'https://example.org/', cadenceHours } });
    await expectError('POST', '/api/v1/monitors', 400, { body: { url: 'https://example.org/', every: 3 } });
    await expectError('POST', '/api/v1/monitors', 400, { body: { url: 'javascript:alert(1)' } });
    for (const minScoreDelta of [100.5, -0.1, null]) await expectError('POST', '/api/v1/webhooks', 400, { body: { url: 'https://example.org/hook', minScoreDelta } });
    await expectError('POST', '/api/v1/webhooks', 400, { body: { url: 'https://example.org/hook', secret: 'mine' } });
    for (const limit of ['0', '101', 'ten', '-5']) {
      await expectError('GET', `/api/v1/scans?limit=${limit}`, 400);
      await expectError('GET', `/api/v1/webhooks/${UUID}/deliveries?limit=${limit}`, 400);
    }
    await expectError('GET', '/api/v1/scans?offset=3', 400);
  });

  it('ids that are not UUIDs: 400; well-formed unknown ids: 404', async () => {
    for (const id of ['1', 'abc', `${UUID}x`, '3b7e2c1a9f4d4e6b8a2c5d1e0f9a7b63', '%27%20OR%201%3D1']) {
      await expectError('GET', `/api/v1/scans/${id}`, 400);
      await expectError('DELETE', `/api/v1/monitors/${id}`, 400);
      await expectError('POST', `/api/v1/monitors/${id}/run`, 400);
      await expectError('DELETE', `/api/v1/webhooks/${id}`, 400);
      await expectError('GET', `/api/v1/webhooks/${id}/deliveries`, 400);
    }
    await expectError('GET', `/api/v1/scans/${UUID}`, 404);
    await expectError('DELETE', `/api/v1/monitors/${UUID}`, 404);
    await expectError('POST', `/api/v1/monitors/${UUID}/run`, 404);
    await expectError('DELETE', `/api/v1/webhooks/${UUID}`, 404);
    await expectError('GET', `/api/v1/webhooks/${UUID}/deliveries`, 404);
  });

  it('3 MB bodies: 413; broken JSON: 400; another media type: 415', async () => {
    for (const path of ['/api/v1/scans', '/api/v1/monitors', '/api/v1/webhooks']) {
      await expectError('POST', path, 413, { raw: BIG });
      await expectError('POST', path, 400, { raw: '{"url":' });
      await expectError('POST', path, 415, { raw: 'url=https://example.org/', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    }
  });

  it('nothing was stored by any of it', async () => {
    const overview = (await sc.call('GET', '/api/v1/overview')).body;
    expect(overview).toMatchObject({ scans: 0, monitors: { total: 0 }, webhooks: { total: 0 }, recentExecutions: [], recentMonitorRuns: [] });
  });
});
