import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '@aduana/shared';
import { schemaErrors, validateAssessment } from './assessment-validator.js';
import { startSwitchableSite, type SwitchableSite } from './fixtures/switchable-site.js';
import { keyForOrg, removeDataDir, startKeyedScanner, type KeyedScanner } from './helpers/keyed-scanner.js';
import { listKeys, revokeKey } from '../src/keys/key-store.js';
import { openScannerStore } from '../src/storage/scanner-store.js';
import type { Assessment } from '../src/assessment/assessment.js';

/** KEY assessments and history through the real service and a real LMDB data directory. */
let site: SwitchableSite;
let sc: KeyedScanner;

beforeAll(async () => {
  site = await startSwitchableSite();
  sc = await startKeyedScanner({ keyDailyQuota: 5 });
});

afterAll(async () => {
  await sc?.close();
  await site?.close();
  if (sc) removeDataDir(sc.dataDir);
});

describe('keys', () => {
  it('the first start writes organisation default’s key to DATA_DIR/bootstrap-scanner.key, mode 0600', async () => {
    expect(sc.bootstrapKey).toMatch(/^adu_sk_[0-9A-Za-z]{36}$/);
    expect(statSync(join(sc.dataDir, 'bootstrap-scanner.key')).mode & 0o777).toBe(0o600);
    const res = await sc.call('GET', '/api/v1/scans');
    expect(res.status).toBe(200);
  });

  it('a missing, malformed, unknown or revoked key is 401 {error} on every KEY route', async () => {
    const revoked = await keyForOrg(sc.dataDir, 'default');
    expect((await sc.call('GET', '/api/v1/overview', { key: revoked })).status).toBe(200);
    const store = openScannerStore(sc.dataDir);
    const id = listKeys(store).find((k) => revoked.startsWith(k.hint) && k.revokedAt === null && k.hint !== sc.bootstrapKey.slice(0, 12))?.id;
    expect(id).toBeDefined();
    await revokeKey(store, id as string);
    await store.close();
    const routes: [string, string][] = [
      ['GET', '/api/v1/scans'],
      ['POST', '/api/v1/scans'],
      ['GET', '/api/v1/scans/2f1c8a43-8c6e-4f55-b5a0-1f0e9d4b6a01'],
      ['GET', '/api/v1/monitors'],
      ['POST', '/api/v1/monitors'],
      ['DELETE', '/api/v1/monitors/2f1c8a43-8c6e-4f55-b5a0-1f0e9d4b6a01'],
      ['POST', '/api/v1/monitors/2f1c8a43-8c6e-4f55-b5a0-1f0e9d4b6a01/run'],
      ['GET', '/api/v1/webhooks'],
      ['POST', '/api/v1/webhooks'],
      ['DELETE', '/api/v1/webhooks/2f1c8a43-8c6e-4f55-b5a0-1f0e9d4b6a01'],
      ['GET', '/api/v1/webhooks/2f1c8a43-8c6e-4f55-b5a0-1f0e9d4b6a01/deliveries'],
      ['GET', '/api/v1/overview'],
    ];
    const wellFormedUnknown = generateToken('sk');
    for (const [method, path] of routes) {
      for (const key of [null, 'nonsense', wellFormedUnknown, sc.bootstrapKey.slice(0, -1) + (sc.bootstrapKey.endsWith('x') ? 'y' : 'x'), revoked]) {
        const res = await sc.call(method, path, { key, ...(method === 'POST' ? { body: { url: `${site.origin}/` } } : {}) });
        expect(res.status, `${method} ${path} with ${String(key)}`).toBe(401);
        expect(res.body).toEqual({ error: 'API key missing, invalid or revoked.' });
      }
    }
  });
});

describe('recorded assessments and history', () => {
  it('POST /api/v1/scans answers an Assessment and records it; GET by scanId returns the same record', async () => {
    const res = await sc.call('POST', '/api/v1/scans', { body: { url: `${site.origin}/` } });
    expect(res.status).toBe(200);
    expect(schemaErrors(validateAssessment, res.body)).toBe('');
    const one = await sc.call('GET', `/api/v1/scans/${res.body.scanId as string}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(res.body);
    const list = await sc.call('GET', '/api/v1/scans');
    expect(list.body.items[0]).toEqual({ scanId: res.body.scanId, url: res.body.url, timestamp: res.body.timestamp, globalScore: res.body.globalScore, grade: res.body.grade, profile: res.body.profile });
  });

  it('the recorded answer and GET by scanId are the same bytes, typed as /api/super-scan types its Assessment', async () => {
    const post = (path: string, key: string | null) =>
      fetch(`${sc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }) }, body: JSON.stringify({ url: `${site.origin}/` }) });
    const recorded = await post('/api/v1/scans', sc.bootstrapKey);
    const plain = await post('/api/super-scan', null);
    expect(recorded.status).toBe(200);
    expect(recorded.headers.get('content-type')).toBe(plain.headers.get('content-type'));
    const text = await recorded.text();
    const scanId = (JSON.parse(text) as { scanId: string }).scanId;
    const again = await fetch(`${sc.url}/api/v1/scans/${scanId}`, { headers: { authorization: `Bearer ${sc.bootstrapKey}` } });
    expect(again.headers.get('content-type')).toBe(plain.headers.get('content-type'));
    expect(await again.text()).toBe(text);
  });

  it('a scan recorded by an earlier version (the decoded Assessment, not its text) still answers GET by scanId', async () => {
    const res = await sc.call('POST', '/api/v1/scans', { body: { url: `${site.origin}/` } });
    const legacyId = '0b7c2a52-7d0e-4c55-9a4e-3f1d2c3b4a59';
    const legacy = { ...(res.body as Record<string, unknown>), scanId: legacyId };
    const store = openScannerStore(sc.dataDir);
    try {
      const orgId = listKeys(store).find((k) => k.org === 'default')?.orgId ?? '';
      await store.scans.put(legacyId, { orgId, assessment: legacy as unknown as Assessment });
    } finally {
      await store.close();
    }
    const one = await sc.call('GET', `/api/v1/scans/${legacyId}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(legacy);
  });

  it('history is newest first and honours limit 1..100', async () => {
    const other = await keyForOrg(sc.dataDir, 'history-org');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await sc.call('POST', '/api/v1/scans', { key: other, body: { url: `${site.origin}/?n=${String(i)}` } })).body.scanId);
    const all = await sc.call('GET', '/api/v1/scans', { key: other });
    expect(all.body.items.map((x: { scanId: string }) => x.scanId)).toEqual([...ids].reverse());
    const two = await sc.call('GET', '/api/v1/scans?limit=2', { key: other });
    expect(two.body.items.map((x: { scanId: string }) => x.scanId)).toEqual([ids[2], ids[1]]);
    expect((await sc.call('GET', '/api/v1/scans?limit=100', { key: other })).status).toBe(200);
    for (const bad of ['0', '101', '-1', 'abc', '1.5', '']) {
      const res = await sc.call('GET', `/api/v1/scans?limit=${bad}`, { key: other });
      expect(res.status, bad).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
    expect((await sc.call('GET', '/api/v1/scans?limit=5&x=1', { key: other })).status).toBe(400);
  });

  it('the daily quota answers 429 with an integer Retry-After, and a refused URL does not spend it', async () => {
    const key = await keyForOrg(sc.dataDir, 'quota-org');
    expect((await sc.call('POST', '/api/v1/scans', { key, body: { url: 'ftp://nope/' } })).status).toBe(400);
    for (let i = 0; i < 5; i++) expect((await sc.call('POST', '/api/v1/scans', { key, body: { url: `${site.origin}/` } })).status).toBe(200);
    const res = await sc.call('POST', '/api/v1/scans', { key, body: { url: `${site.origin}/` } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(86_400);
    expect(res.body).toEqual({ error: 'The API key used up its assessment quota for today; retry later.' });
    // Nothing recorded for the refused one.
    expect((await sc.call('GET', '/api/v1/scans', { key })).body.items).toHaveLength(5);
    // Another key of another organisation still has its own quota.
    const fresh = await keyForOrg(sc.dataDir, 'quota-org-2');
    expect((await sc.call('POST', '/api/v1/scans', { key: fresh, body: { url: `${site.origin}/` } })).status).toBe(200);
  });
});

describe('organisation isolation', () => {
  it('another organisation’s scan, monitor and webhook ids answer 404, and its lists and overview do not show them', async () => {
    const a = await keyForOrg(sc.dataDir, 'org-a');
    const b = await keyForOrg(sc.dataDir, 'org-b');
    const scan = (await sc.call('POST', '/api/v1/scans', { key: a, body: { url: `${site.origin}/` } })).body;
    const monitor = (await sc.call('POST', '/api/v1/monitors', { key: a, body: { url: `${site.origin}/`, cadenceHours: 720 } })).body;
    const hookRes = await sc.call('POST', '/api/v1/webhooks', { key: a, body: { url: 'https://127.0.0.1:9/hook' } });
    expect(hookRes.status).toBe(201);
    const hook = hookRes.body;
    expect((await sc.call('GET', `/api/v1/scans/${scan.scanId as string}`, { key: b })).status).toBe(404);
    expect((await sc.call('DELETE', `/api/v1/monitors/${monitor.id as string}`, { key: b })).status).toBe(404);
    expect((await sc.call('POST', `/api/v1/monitors/${monitor.id as string}/run`, { key: b })).status).toBe(404);
    expect((await sc.call('DELETE', `/api/v1/webhooks/${hook.id as string}`, { key: b })).status).toBe(404);
    expect((await sc.call('GET', `/api/v1/webhooks/${hook.id as string}/deliveries`, { key: b })).status).toBe(404);
    expect((await sc.call('GET', '/api/v1/scans', { key: b })).body.items).toEqual([]);
    expect((await sc.call('GET', '/api/v1/monitors', { key: b })).body.items).toEqual([]);
    expect((await sc.call('GET', '/api/v1/webhooks', { key: b })).body.items).toEqual([]);
    const ob = (await sc.call('GET', '/api/v1/overview', { key: b })).body;
    expect(ob).toMatchObject({ scans: 0, monitors: { active: 0, inactive: 0 }, webhooks: { active: 0, inactive: 0 }, recentExecutions: [] });
    // The owner still sees and controls all of them.
    expect((await sc.call('GET', `/api/v1/scans/${scan.scanId as string}`, { key: a })).status).toBe(200);
    expect((await sc.call('DELETE', `/api/v1/webhooks/${hook.id as string}`, { key: a })).status).toBe(204);
    expect((await sc.call('DELETE', `/api/v1/monitors/${monitor.id as string}`, { key: a })).status).toBe(204);
    const oa = (await sc.call('GET', '/api/v1/overview', { key: a })).body;
    expect(oa).toMatchObject({ monitors: { active: 0, inactive: 1 }, webhooks: { active: 0, inactive: 1 } });
    expect(oa.scans).toBeGreaterThanOrEqual(1);
  });
});
