import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSwitchableSite, type SwitchableSite } from './fixtures/switchable-site.js';
import { poll } from '../../shared/test/helpers/poll.js';
import { keyForOrg, removeDataDir, startKeyedScanner, type KeyedScanner } from './helpers/keyed-scanner.js';

/**
 * How monitors are billed and limited (docs/scanner.md, "Monitors"), through the real service and LMDB, on the
 * service's own test clock: scheduled runs spend the creating key's quota, a deleted monitor keeps its place in the
 * limit for a while, and creation is rate limited per key.
 */
const HOUR_MS = 3_600_000;
let site: SwitchableSite;

beforeAll(async () => {
  site = await startSwitchableSite();
});

afterAll(async () => {
  await site?.close();
});

/** A scanner whose clock (quota windows, scheduler, monitors) is the returned `clock.now`, moved by the test. */
async function clockedScanner(overrides: Record<string, string | number | boolean>, start: number): Promise<{ sc: KeyedScanner; clock: { now: number } }> {
  const clock = { now: start };
  const sc = await startKeyedScanner(overrides, { now: () => clock.now });
  return { sc, clock };
}

async function closeScanner(sc: KeyedScanner | undefined): Promise<void> {
  if (sc === undefined) return;
  await sc.close();
  removeDataDir(sc.dataDir);
}

type Run = { monitorId: string; status: string; error: string | null; scanId: string | null };

async function runsOf(sc: KeyedScanner, key: string): Promise<Run[]> {
  return (await sc.call('GET', '/api/v1/overview', { key })).body.recentMonitorRuns as Run[];
}

/** Waits until the organisation has `count` finished monitor runs, and answers them newest first. */
async function finishedRuns(sc: KeyedScanner, key: string, count: number): Promise<Run[]> {
  return poll(() => runsOf(sc, key), {
    what: `${count} finished monitor runs`,
    until: (runs) => runs.length >= count && runs.every((r) => r.status !== 'running'),
    timeoutMs: 15_000,
  });
}

describe('monitor billing', () => {
  let sc: KeyedScanner | undefined;
  afterAll(() => closeScanner(sc));

  it('scheduled runs spend the creating key’s daily quota; once it is spent a due run is skipped and recorded so, not run', async () => {
    const started = await clockedScanner({ schedulerTickMs: 20, keyDailyQuota: 2 }, Date.UTC(2026, 0, 12, 1, 0, 0));
    sc = started.sc;
    const { clock } = started;
    const creator = await keyForOrg(sc.dataDir, 'billed');
    const other = await keyForOrg(sc.dataDir, 'billed'); // a second key of the same organisation
    const path = '/billed';
    const fetched = (): number => site.requests.filter((r) => r.path === path).length;
    const m = (await sc.call('POST', '/api/v1/monitors', { key: creator, body: { url: `${site.origin}${path}`, cadenceHours: 1 } })).body;
    expect(m.id).toMatch(/^[0-9a-f-]{36}$/);

    // The first, immediate run is scheduled: it spends one of the creator's two units.
    expect((await finishedRuns(sc, creator, 1)).map((r) => r.status)).toEqual(['succeeded']);
    expect((await sc.call('POST', '/api/v1/scans', { key: creator, body: { url: `${site.origin}/by-hand` } })).status).toBe(200);
    const spent = await sc.call('POST', '/api/v1/scans', { key: creator, body: { url: `${site.origin}/by-hand` } });
    expect(spent.status).toBe(429);
    expect(spent.body).toEqual({ error: 'The API key used up its assessment quota for today; retry later.' });
    // Charged to the key that created the monitor, not to its organisation's other keys.
    expect((await sc.call('POST', '/api/v1/scans', { key: other, body: { url: `${site.origin}/by-hand` } })).status).toBe(200);

    // One cadence on, the run is due but the creator's quota is spent: skipped, recorded as such, the site not asked.
    const hitsBefore = fetched();
    clock.now += HOUR_MS;
    const afterSkip = await finishedRuns(sc, creator, 2);
    expect(afterSkip[0]).toMatchObject({ monitorId: m.id, status: 'skipped', error: 'quota_exceeded', scanId: null });
    expect(fetched()).toBe(hitsBefore);
    const listed = ((await sc.call('GET', '/api/v1/monitors', { key: creator })).body.items as { id: string; lastScanId: string | null }[]).find((x) => x.id === m.id);
    expect(listed?.lastScanId).toBe(afterSkip[1]?.scanId);

    // The next UTC day gives the key its quota back, and the monitor's next slot runs again.
    clock.now = Date.UTC(2026, 0, 13, 0, 30, 0);
    const resumed = await finishedRuns(sc, creator, 3);
    expect(resumed[0]).toMatchObject({ monitorId: m.id, status: 'succeeded' });
    expect(fetched()).toBeGreaterThan(hitsBefore);
  });
});

describe('the monitor limit counts deleted monitors for a while', () => {
  let sc: KeyedScanner | undefined;
  afterAll(() => closeScanner(sc));

  it('create 5, delete 5, create again is refused past the limit until the deleted ones’ next run would have started', async () => {
    const started = await clockedScanner({ schedulerTickMs: 3_600_000, maxMonitorsPerOrg: 5 }, Date.UTC(2026, 1, 3, 9, 0, 0));
    sc = started.sc;
    const { clock } = started;
    const key = await keyForOrg(sc.dataDir, 'churn');
    const create = (n: number, cadenceHours: number): Promise<{ status: number; body: { id: string } }> =>
      sc!.call('POST', '/api/v1/monitors', { key, body: { url: `${site.origin}/churn-${String(n)}`, cadenceHours } });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await create(i, 2);
      expect(c.status).toBe(201);
      ids.push(c.body.id);
    }
    expect((await create(5, 2)).status).toBe(400);
    for (const id of ids) expect((await sc.call('DELETE', `/api/v1/monitors/${id}`, { key })).status).toBe(204);

    const refused = await create(6, 2);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'The organisation has the most monitors allowed (recently deleted ones included).' });
    clock.now += 2 * HOUR_MS - 1_000;
    expect((await create(7, 2)).status).toBe(400);
    // Two hours after creation the deleted monitors' next run would have started: their places are free again.
    clock.now += 1_000;
    for (let i = 0; i < 5; i++) expect((await create(10 + i, 720)).status).toBe(201);
    expect((await create(15, 720)).status).toBe(400);
    const active = ((await sc.call('GET', '/api/v1/monitors', { key })).body.items as { active: boolean }[]).filter((x) => x.active);
    expect(active).toHaveLength(5);
  });

  it('a deleted monitor with a long cadence holds its place 24 hours at most', async () => {
    const started = await clockedScanner({ schedulerTickMs: 3_600_000, maxMonitorsPerOrg: 1 }, Date.UTC(2026, 1, 10, 9, 0, 0));
    const scanner = started.sc;
    try {
      const key = await keyForOrg(scanner.dataDir, 'monthly');
      const m = await scanner.call('POST', '/api/v1/monitors', { key, body: { url: `${site.origin}/monthly`, cadenceHours: 720 } });
      expect(m.status).toBe(201);
      expect((await scanner.call('DELETE', `/api/v1/monitors/${m.body.id as string}`, { key })).status).toBe(204);
      started.clock.now += 24 * HOUR_MS - 1_000;
      expect((await scanner.call('POST', '/api/v1/monitors', { key, body: { url: `${site.origin}/monthly-2` } })).status).toBe(400);
      started.clock.now += 1_000;
      expect((await scanner.call('POST', '/api/v1/monitors', { key, body: { url: `${site.origin}/monthly-3` } })).status).toBe(201);
    } finally {
      await closeScanner(scanner);
    }
  });
});

describe('monitor creation rate', () => {
  let sc: KeyedScanner | undefined;
  afterAll(() => closeScanner(sc));

  it('past SCANNER_KEY_MONITOR_CREATIONS_PER_HOUR a key’s creation answers 429 with Retry-After and stores nothing', async () => {
    const started = await clockedScanner({ schedulerTickMs: 3_600_000, keyMonitorCreationsPerHour: 3 }, Date.UTC(2026, 2, 2, 10, 59, 30));
    sc = started.sc;
    const { clock } = started;
    const key = await keyForOrg(sc.dataDir, 'hasty');
    const other = await keyForOrg(sc.dataDir, 'hasty');
    const create = (k: string, path: string, cadenceHours = 24): Promise<{ status: number; headers: Headers; body: unknown }> =>
      sc!.call('POST', '/api/v1/monitors', { key: k, body: { url: `${site.origin}${path}`, cadenceHours } });
    // A refused body creates nothing and spends nothing.
    expect((await create(key, '/hasty-bad', 0)).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await create(key, `/hasty-${String(i)}`)).status).toBe(201);
    const limited = await create(key, '/hasty-3');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('30');
    expect(limited.body).toEqual({ error: 'The API key created too many monitors this hour; retry later.' });
    expect((await sc.call('GET', '/api/v1/monitors', { key })).body.items).toHaveLength(3);
    // Per key: another key of the same organisation still creates.
    expect((await create(other, '/hasty-other')).status).toBe(201);
    // The next clock hour gives the key its creations back.
    clock.now = Date.UTC(2026, 2, 2, 11, 0, 0);
    expect((await create(key, '/hasty-4')).status).toBe(201);
  });
});
