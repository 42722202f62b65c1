/**
 * Scanner benchmark (targets in docs/benchmarks.md).
 *  1. In-process: the checks engine (profile detection, all registered checks, scoring) over a ~200 KB snapshot,
 *     parsing included (tinybench). Target: p50 ≤ 10 ms.
 *  2. Full assessments per second: POST /api/super-scan against `startScanner` with the real collector, the target a
 *     local fixture site on 127.0.0.1 serving the same page and its resources (allowed via SCANNER_ALLOW_PRIVATE).
 *  3. Recorded vs unrecorded assessment, and history listing with 100,000 stored scans (scanner-history.ts).
 * Run: npm run build && node bench/dist/scanner-checks.js [--engine-only | --orgs-only]
 *      (env BENCH_DURATION_S, BENCH_CONCURRENCY, BENCH_ROUNDS, BENCH_PER_ROUND)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { assess, CHECKS, Derived, loadScannerConfig, runChecks, startScanner } from '@aduana/scanner';
import { fmt, microBench, table } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';
import { historyListing, recordedVsUnrecorded } from './scanner-history.js';
import { benchPage, benchSnapshot } from './scanner-snapshot.js';

const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);

async function checksEngine() {
  const snapshot = benchSnapshot();
  // Warm parse reused: isolates the checks themselves from HTML parsing.
  const warm = new Derived();
  runChecks(CHECKS, snapshot, 'commerce', warm);
  const results = await microBench(
    {
      'assess(): detect profile + all checks + scoring, parse included': () => assess(snapshot, { requestId: 'bench' }),
      'all checks, page already parsed': () => runChecks(CHECKS, snapshot, 'commerce', warm),
    },
    { timeMs: 3000 },
  );
  console.log(`\nChecks engine over a ${fmt(snapshot.page.bodyBytes / 1024, 0)} KiB page, ${CHECKS.length} checks`);
  console.log(table(['task', 'ops/s', 'mean ms', 'p50 ms', 'p99 ms', 'target'], results.map((r, i) => [r.name, r.opsPerSec, fmt(r.meanUs / 1000, 2), fmt(r.p50Us / 1000, 2), fmt(r.p99Us / 1000, 2), i === 0 ? 'p50 ≤ 10 ms' : ''])));
  return results;
}

/** The fixture site: the benchmark page (gzip) and its robots.txt, sitemap, security.txt and llms.txt. */
async function fixtureSite(): Promise<{ server: Server; origin: string }> {
  const page = gzipSync(benchPage());
  const texts: Record<string, [string, string]> = {
    '/robots.txt': ['text/plain', 'User-agent: *\nAllow: /\n'],
    '/sitemap.xml': ['application/xml', '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/</loc></url></urlset>'],
    '/.well-known/security.txt': ['text/plain', 'Contact: mailto:s@example.org\nExpires: 2099-01-01T00:00:00Z\n'],
    '/llms.txt': ['text/markdown', '# Bench\n\n- [Home](/): home\n'],
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'x-content-type-options': 'nosniff' }).end(page);
      return;
    }
    const t = texts[path];
    if (t) res.writeHead(200, { 'content-type': t[0] }).end(t[1]);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function fullAssessments() {
  const site = await fixtureSite();
  const config = loadScannerConfig({}, {
    port: 0,
    allowPrivate: '127.0.0.0/8',
    logLevel: 'warn',
    ratePerIpPerMinute: 1_000_000,
    ratePerTargetPerHour: 1_000_000,
    ratePlatformPerMinute: 1_000_000,
  });
  const scanner = await startScanner(config);
  const body = JSON.stringify({ url: `${site.origin}/` });
  const one = async (): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(`${scanner.url}/api/super-scan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    if (res.status !== 200) throw new Error(`super-scan answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    return performance.now() - t0;
  };
  try {
    for (let i = 0; i < 5; i++) await one(); // warm-up
    const latencies: number[] = [];
    const deadline = performance.now() + durationS * 1000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) latencies.push(await one());
      }),
    );
    const elapsedS = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
    const row = { assessments: latencies.length, perSecond: latencies.length / elapsedS, p50Ms: q(0.5), p99Ms: q(0.99) };
    console.log(`\nFull assessments over HTTP (collector + checks + scoring), fixture site on loopback, ${concurrency} concurrent, ${durationS} s`);
    console.log(table(['assessments', 'per second', 'p50 ms', 'p99 ms'], [[row.assessments, fmt(row.perSecond, 1), fmt(row.p50Ms, 1), fmt(row.p99Ms, 1)]]));
    return row;
  } finally {
    await scanner.close();
    await new Promise<void>((resolve) => site.server.close(() => resolve()));
  }
}

async function organisations() {
  const site = await fixtureSite();
  try {
    const recorded = await recordedVsUnrecorded(site.origin, { rounds: Number(process.env.BENCH_ROUNDS ?? 6), perRound: Number(process.env.BENCH_PER_ROUND ?? 100), concurrency });
    const history = await historyListing({ stored: 100_000, requests: 1_000 });
    return { recorded, history };
  } finally {
    await new Promise<void>((resolve) => site.server.close(() => resolve()));
  }
}

// --orgs-only: just the organisation figures (recorded vs unrecorded, history listing).
const orgsOnly = process.argv.includes('--orgs-only');
const engine = orgsOnly ? undefined : await checksEngine();
const http = process.argv.includes('--engine-only') || orgsOnly ? undefined : await fullAssessments();
const orgs = process.argv.includes('--engine-only') ? undefined : await organisations();
console.log(`\nresults: ${writeResults(orgsOnly ? 'scanner-orgs' : 'scanner-checks', { engine, http, orgs })}`);
