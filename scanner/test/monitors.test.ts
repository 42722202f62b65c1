import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSwitchableSite, type SwitchableSite } from './fixtures/switchable-site.js';
import { poll } from '../../shared/test/helpers/poll.js';
import { keyForOrg, removeDataDir, startKeyedScanner, tempDataDir, type KeyedScanner } from './helpers/keyed-scanner.js';

/** Monitors and their scheduler through the real service and a real LMDB data directory. */
let site: SwitchableSite;

beforeAll(async () => {
  site = await startSwitchableSite();
});

afterAll(async () => {
  await site?.close();
});

type Item = { scanId: string; url: string };

async function historyOf(sc: KeyedScanner, key: string, url: string): Promise<Item[]> {
  return ((await sc.call('GET', '/api/v1/scans?limit=100', { key })).body.items as Item[]).filter((i) => i.url === url);
}

describe('monitor lifecycle', () => {
  let sc: KeyedScanner;
  beforeAll(async () => {
    // A long tick: nothing runs by schedule during these tests except the first pass at start.
    sc = await startKeyedScanner({ schedulerTickMs: 3_600_000 });
  });
  afterAll(async () => {
    await sc?.close();
    if (sc) removeDataDir(sc.dataDir);
  });

  it('POST 201 active with cadence 24 by default; GET lists active and inactive; DELETE 204 deactivates, 404 when absent', async () => {
    const created = await sc.call('POST', '/api/v1/monitors', { body: { url: `${site.origin}/lifecycle` } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: `${site.origin}/lifecycle`, profile: 'auto', cadenceHours: 24, active: true });
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const weekly = await sc.call('POST', '/api/v1/monitors', { body: { url: `${site.origin}/weekly`, cadenceHours: 168, profile: 'content' } });
    expect(weekly.body).toMatchObject({ cadenceHours: 168, profile: 'content', active: true });
    expect((await sc.call('DELETE', `/api/v1/monitors/${created.body.id as string}`)).status).toBe(204);
    const list = (await sc.call('GET', '/api/v1/monitors')).body.items as { id: string; active: boolean }[];
    expect(list.find((m) => m.id === created.body.id)?.active).toBe(false);
    expect(list.find((m) => m.id === weekly.body.id)?.active).toBe(true);
    // Deactivating again is still 204 (the monitor exists); an unknown id is 404.
    expect((await sc.call('DELETE', `/api/v1/monitors/${created.body.id as string}`)).status).toBe(204);
    const absent = await sc.call('DELETE', '/api/v1/monitors/6c1f1b7e-2a43-4a0e-9d7a-3c2b1a0f9e88');
    expect(absent.status).toBe(404);
    expect(absent.body).toEqual({ error: 'Monitor not found.' });
    // An inactive monitor cannot be run.
    expect((await sc.call('POST', `/api/v1/monitors/${created.body.id as string}/run`)).status).toBe(409);
  });

  it('POST …/run spends the key’s daily quota: 429 with Retry-After once it is used up', async () => {
    const limited = await startKeyedScanner({ schedulerTickMs: 3_600_000, keyDailyQuota: 1 });
    try {
      const m = (await limited.call('POST', '/api/v1/monitors', { body: { url: `${site.origin}/quota`, cadenceHours: 720 } })).body;
      expect((await limited.call('POST', `/api/v1/monitors/${m.id as string}/run`)).status).toBe(200);
      const refused = await limited.call('POST', `/api/v1/monitors/${m.id as string}/run`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      // The lease was released: the monitor is not left "running".
      expect(((await limited.call('GET', '/api/v1/monitors')).body.items as { running: boolean }[])[0]?.running).toBe(false);
    } finally {
      await limited.close();
      removeDataDir(limited.dataDir);
    }
  });

  it('POST …/run runs the monitor now: a recorded assessment of its URL, listed in history and the overview', async () => {
    const key = await keyForOrg(sc.dataDir, 'run-now');
    const url = `${site.origin}/run-now`;
    const m = (await sc.call('POST', '/api/v1/monitors', { key, body: { url, cadenceHours: 720 } })).body;
    // The scheduler's first pass may take the new monitor's baseline run; wait until it is not running.
    await poll(async () => ((await sc.call('GET', '/api/v1/monitors', { key })).body.items as { running: boolean }[]).every((x) => !x.running), { what: 'no monitor running', timeoutMs: 15_000 });
    const before = (await historyOf(sc, key, url)).length;
    const run = await sc.call('POST', `/api/v1/monitors/${m.id as string}/run`, { key });
    expect(run.status).toBe(200);
    expect(run.body.url).toBe(url);
    const after = await historyOf(sc, key, url);
    expect(after).toHaveLength(before + 1);
    expect(after[0]?.scanId).toBe(run.body.scanId);
    const listed = ((await sc.call('GET', '/api/v1/monitors', { key })).body.items as { id: string; lastScanId: string; lastScore: number }[]).find((x) => x.id === m.id);
    expect(listed?.lastScanId).toBe(run.body.scanId);
    expect(listed?.lastScore).toBe(run.body.globalScore);
    const overview = (await sc.call('GET', '/api/v1/overview', { key })).body;
    expect(overview.recentMonitorRuns[0]).toMatchObject({ monitorId: m.id, trigger: 'manual', status: 'succeeded', scanId: run.body.scanId });
  });
});

describe('the scheduler', () => {
  it('runs a due monitor once per cadence: not again after a restart, nor with two services on one data directory', async () => {
    const dataDir = tempDataDir();
    const url = `${site.origin}/scheduled`;
    const fast = { schedulerTickMs: 50 };
    const first = await startKeyedScanner(fast, { dataDir });
    try {
      const created = await first.call('POST', '/api/v1/monitors', { body: { url, cadenceHours: 1 } });
      expect(created.status).toBe(201);
      // Due at creation: the first pass claims it and records one assessment.
      await poll(async () => (await historyOf(first, first.bootstrapKey, url)).length >= 1, { what: 'the first assessment of the monitor', timeoutMs: 15_000 });
      await poll(async () => ((await first.call('GET', '/api/v1/monitors')).body.items as { running: boolean }[]).every((m) => !m.running), { what: 'no monitor running', timeoutMs: 15_000 });
    } finally {
      await first.close();
    }
    // Two services on the same data directory, both ticking every 50 ms, for many ticks.
    const second = await startKeyedScanner(fast, { dataDir });
    const third = await startKeyedScanner(fast, { dataDir });
    try {
      const fetched = (): number => site.requests.filter((r) => r.path === '/scheduled').length;
      const hitsBefore = fetched();
      await new Promise((r) => setTimeout(r, 1_500));
      expect(await historyOf(second, second.bootstrapKey, url)).toHaveLength(1);
      const monitor = ((await third.call('GET', '/api/v1/monitors')).body.items as { url: string; nextRunAt: string; lastRunAt: string }[]).find((m) => m.url === url);
      // The next slot is one cadence after the first: nothing is due for an hour.
      expect(Date.parse(monitor?.nextRunAt ?? '') - Date.parse(monitor?.lastRunAt ?? '')).toBeGreaterThanOrEqual(3_600_000 - 1_000);
      expect(fetched()).toBe(hitsBefore);
    } finally {
      await Promise.all([second.close(), third.close()]);
      removeDataDir(dataDir);
    }
  });

  it('two services started together on one data directory claim a due monitor once between them', async () => {
    const dataDir = tempDataDir();
    const url = `${site.origin}/contended`;
    // Created by an idle service (long tick), which then stops: the monitor is due when the next two start.
    const idle = await startKeyedScanner({ schedulerTickMs: 3_600_000 }, { dataDir });
    await idle.call('POST', '/api/v1/monitors', { body: { url, cadenceHours: 1 } });
    await idle.close();
    const fetched = (): number => site.requests.filter((r) => r.path === '/contended').length;
    const [c, d] = await Promise.all([startKeyedScanner({ schedulerTickMs: 20 }, { dataDir }), startKeyedScanner({ schedulerTickMs: 20 }, { dataDir })]);
    try {
      await poll(async () => (await historyOf(c, c.bootstrapKey, url)).length >= 1, { what: 'an assessment of the contended monitor', timeoutMs: 15_000 });
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await historyOf(d, d.bootstrapKey, url)).toHaveLength(1);
      // One run recorded, and the page fetched by one assessment only (the collector asks for it as HTML and as Markdown).
      const runs = (await d.call('GET', '/api/v1/overview')).body.recentMonitorRuns as { status: string }[];
      expect(runs.map((r) => r.status)).toEqual(['succeeded']);
      expect(fetched()).toBe(2);
    } finally {
      await Promise.all([c.close(), d.close()]);
      removeDataDir(dataDir);
    }
  });
});
