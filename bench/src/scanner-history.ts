/**
 * Scanner benchmarks for organisations (targets in docs/benchmarks.md), run by `npm run bench:scanner`:
 *  1. Recorded vs unrecorded assessment: POST /api/v1/scans (key check, quota, assessment, LMDB record) against
 *     POST /api/super-scan (the same assessment, nothing stored), interleaved rounds against one service and one
 *     fixture site. Target: recorded costs < 5% more (latency, and the process's CPU time per request, which a shared
 *     machine's load moves less). Floor: recordAssessment alone, in process.
 *  2. History listing: GET /api/v1/scans?limit=100 with 100,000 scans of the organisation stored (history lines
 *     seeded straight into LMDB). Target: p50 < 5 ms. Floor: listHistory in process.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assess, historyItem, listHistory, loadScannerConfig, openScannerStore, recordAssessment, startScanner } from '@aduana/scanner';
import { fmt, microBench, table } from './harness/micro-bench.js';
import { benchSnapshot } from './scanner-snapshot.js';

interface Latencies {
  readonly n: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

function summarise(samples: number[]): Latencies {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number): number => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { n: s.length, meanMs: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length), p50Ms: q(0.5), p99Ms: q(0.99) };
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Recorded vs unrecorded assessments, `rounds` interleaved rounds of `perRound` requests each, `concurrency` at once. */
export async function recordedVsUnrecorded(siteOrigin: string, opts: { rounds: number; perRound: number; concurrency: number }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'aduana-bench-scanner-'));
  const config = loadScannerConfig({}, {
    port: 0,
    dataDir,
    allowPrivate: '127.0.0.0/8',
    logLevel: 'warn',
    ratePerIpPerMinute: 1_000_000,
    ratePerTargetPerHour: 1_000_000,
    ratePlatformPerMinute: 1_000_000,
    keyDailyQuota: 10_000_000,
    schedulerTickMs: 3_600_000,
  });
  const scanner = await startScanner(config);
  const key = readFileSync(join(dataDir, 'bootstrap-scanner.key'), 'utf8').trim();
  const body = JSON.stringify({ url: `${siteOrigin}/` });
  const post = (path: string, auth: boolean) => async () => {
    const res = await fetch(`${scanner.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${key}` } : {}) }, body });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  const plain = post('/api/super-scan', false);
  const recorded = post('/api/v1/scans', true);
  // CPU time of the whole process (every thread: event loop, LMDB's writer, the client and the fixture site, the last
  // two the same on both sides) per side: on a shared machine it moves far less with the load than latency does.
  const round = async (fn: () => Promise<void>, into: number[]): Promise<number> => {
    let left = opts.perRound;
    const c0 = process.cpuUsage();
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (left-- > 0) into.push(await timed(fn));
      }),
    );
    const c = process.cpuUsage(c0);
    return c.user + c.system;
  };
  try {
    const warm: number[] = [];
    await round(plain, warm);
    await round(recorded, warm);
    const a: number[] = [];
    const b: number[] = [];
    let cpuA = 0;
    let cpuB = 0;
    // Interleaved, and the order flipped every round, so drift in machine load lands on both sides.
    for (let r = 0; r < opts.rounds; r++) {
      if (r % 2 === 0) {
        cpuA += await round(plain, a);
        cpuB += await round(recorded, b);
      } else {
        cpuB += await round(recorded, b);
        cpuA += await round(plain, a);
      }
    }
    const unrec = summarise(a);
    const rec = summarise(b);
    const overheadPct = ((rec.meanMs - unrec.meanMs) / unrec.meanMs) * 100;
    const overheadP50Pct = ((rec.p50Ms - unrec.p50Ms) / unrec.p50Ms) * 100;
    const cpuUnrecMs = cpuA / 1000 / Math.max(1, a.length);
    const cpuRecMs = cpuB / 1000 / Math.max(1, b.length);
    const overheadCpuPct = ((cpuRecMs - cpuUnrecMs) / cpuUnrecMs) * 100;
    // Floor: the store write alone, in process, for the same assessment.
    const store = openScannerStore(dataDir);
    const assessment = assess(benchSnapshot(), { requestId: 'bench' }).assessment;
    let i = 0;
    // The JSON text is made once: on the recorded path it is the answer's serialisation, not the record's work.
    const json = JSON.stringify(assessment);
    const floorRecord = () => recordAssessment(store, 'floor-org', { ...assessment, scanId: `floor-${String(i++)}` }, json);
    const [floor] = await microBench({ 'recordAssessment (one LMDB write transaction)': floorRecord }, { timeMs: 1500 });
    await store.close();
    console.log(`\nRecorded vs unrecorded assessment over HTTP, fixture site on loopback, ${opts.concurrency} concurrent, ${opts.rounds} interleaved rounds of ${opts.perRound}`);
    console.log(
      table(
        ['endpoint', 'requests', 'mean ms', 'p50 ms', 'p99 ms', 'CPU ms each', 'target'],
        [
          ['POST /api/super-scan (unrecorded)', unrec.n, fmt(unrec.meanMs, 2), fmt(unrec.p50Ms, 2), fmt(unrec.p99Ms, 2), fmt(cpuUnrecMs, 2), ''],
          ['POST /api/v1/scans (recorded)', rec.n, fmt(rec.meanMs, 2), fmt(rec.p50Ms, 2), fmt(rec.p99Ms, 2), fmt(cpuRecMs, 2), '< 5% more'],
          [`overhead: mean ${fmt(overheadPct, 1)}%, p50 ${fmt(overheadP50Pct, 1)}%, CPU ${fmt(overheadCpuPct, 1)}%`, '', '', '', '', '', ''],
          [`floor: ${floor?.name ?? ''}`, floor?.samples ?? 0, fmt((floor?.meanUs ?? 0) / 1000, 3), fmt((floor?.p50Us ?? 0) / 1000, 3), fmt((floor?.p99Us ?? 0) / 1000, 3), '', ''],
        ],
      ),
    );
    return { unrecorded: unrec, recorded: rec, overheadMeanPct: overheadPct, overheadP50Pct, cpuMsEach: { unrecorded: cpuUnrecMs, recorded: cpuRecMs }, overheadCpuPct, floorRecordUs: floor };
  } finally {
    await scanner.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** History listing with `stored` scans of one organisation (plus another organisation's, interleaved in the table). */
export async function historyListing(opts: { stored: number; requests: number }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'aduana-bench-history-'));
  const config = loadScannerConfig({}, { port: 0, dataDir, logLevel: 'warn', schedulerTickMs: 3_600_000 });
  // Started once to bootstrap the key and organisation, then the store is seeded while the service is down.
  let scanner = await startScanner(config);
  await scanner.close();
  const key = readFileSync(join(dataDir, 'bootstrap-scanner.key'), 'utf8').trim();
  const store = openScannerStore(dataDir);
  const orgId = [...store.orgs.getRange()][0]?.value.id ?? '';
  const item = historyItem(assess(benchSnapshot(), { requestId: 'bench' }).assessment);
  const t0 = Date.now() - opts.stored * 1000;
  // Seeded in batches of one transaction each; history lines only (a listing reads nothing else).
  for (let start = 0; start < opts.stored; start += 10_000) {
    await store.root.transaction(() => {
      for (let i = start; i < Math.min(opts.stored, start + 10_000); i++) {
        const at = t0 + i * 1000;
        const scanId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
        void store.history.put([orgId, at, scanId], { ...item, scanId, timestamp: new Date(at).toISOString() });
        void store.history.put(['another-org', at, scanId], { ...item, scanId, timestamp: new Date(at).toISOString() });
      }
      void store.counters.put([orgId, 'scans'], opts.stored);
    });
  }
  const [floor] = await microBench({ 'listHistory(100) in process': () => listHistory(store, orgId, 100) }, { timeMs: 1500 });
  await store.close();
  scanner = await startScanner(config);
  try {
    const get = async () => {
      const res = await fetch(`${scanner.url}/api/v1/scans?limit=100`, { headers: { authorization: `Bearer ${key}` } });
      const json = (await res.json()) as { items: unknown[] };
      if (res.status !== 200 || json.items.length !== 100) throw new Error(`history answered ${res.status}`);
    };
    for (let i = 0; i < 50; i++) await get();
    const samples: number[] = [];
    for (let i = 0; i < opts.requests; i++) samples.push(await timed(get));
    const http = summarise(samples);
    console.log(`\nHistory listing, limit=100, with ${opts.stored.toLocaleString('en')} scans stored for the organisation (and as many for another)`);
    console.log(
      table(
        ['task', 'requests', 'mean ms', 'p50 ms', 'p99 ms', 'target'],
        [
          ['GET /api/v1/scans?limit=100 over HTTP', http.n, fmt(http.meanMs, 2), fmt(http.p50Ms, 2), fmt(http.p99Ms, 2), 'p50 < 5 ms'],
          [`floor: ${floor?.name ?? ''}`, floor?.samples ?? 0, fmt((floor?.meanUs ?? 0) / 1000, 3), fmt((floor?.p50Us ?? 0) / 1000, 3), fmt((floor?.p99Us ?? 0) / 1000, 3), ''],
        ],
      ),
    );
    return { stored: opts.stored, http, floor };
  } finally {
    await scanner.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
