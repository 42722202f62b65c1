/**
 * Benchmarks of the scanner's report, crawl and observation engines (docs/benchmarks-history.md, "Scanner engines"):
 *  1. PDF reports: generation time and size of each report from an assessment of the benchmark page, and of a long
 *     one (60 findings, long URL and agency).
 *  2. Static crawl of 10 pages of a fixture site on loopback.
 *  3. One rendered-page observation with Debian's Chromium: cold (browser launch included) and warm.
 *  4. Memory: the Node process (RSS, heap) and Chromium's processes (RSS) with the browser idle, then after 20 renderings.
 * Run: npm run bench:engines   (needs /usr/bin/chromium; SCANNER_CHROMIUM_PATH overrides)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { NetGuard } from '@aduana/shared';
import {
  assess,
  BrowserHost,
  crawlSite,
  landingSignals,
  observePage,
  renderGrowthReport,
  renderPaidMediaReport,
  type Assessment,
  type Finding,
  type GrowthRequest,
} from '@aduana/scanner';
import { fmt, table } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';
import { benchPage, benchSnapshot } from './scanner-snapshot.js';

const CHROMIUM = process.env.SCANNER_CHROMIUM_PATH ?? '/usr/bin/chromium';
const LIMITS = { maxElements: 100_000, maxDepth: 512 };
/** The fixtures are IP literals on loopback; any host name (the page's tag manager, say) is refused without a DNS query. */
const offline = (): NetGuard =>
  new NetGuard({
    allowPrivate: ['127.0.0.1/32'],
    lookup: async (name) => {
      throw new Error(`offline benchmark: ${name} not looked up`);
    },
  });

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timed<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const started = performance.now();
  const value = await fn();
  return [value, performance.now() - started];
}

function reports() {
  const snapshot = benchSnapshot();
  const request: GrowthRequest = { url: snapshot.requestedUrl, keyword: 'café especial', keywords: ['café especial', 'torra média', 'assinatura'], agency: 'Agência Exemplo' };
  const { assessment } = assess(snapshot, { requestId: 'bench' });
  const signals = landingSignals(snapshot, ['café especial', 'torra média', 'assinatura'], LIMITS);
  const longFindings: Finding[] = Array.from({ length: 60 }, (_, i) => ({
    ...(assessment.findings[i % assessment.findings.length] as Finding),
    id: `bench.finding-${String(i)}`,
    evidence: `https://cafe.example/${'caminho/'.repeat(200)} ${'evidência '.repeat(80)}`,
  }));
  const long: Assessment = { ...assessment, url: `https://cafe.example/${'a'.repeat(2000)}`, findings: longFindings };
  const longRequest: GrowthRequest = { ...request, agency: 'A'.repeat(120) };
  const cases: [string, () => Buffer][] = [
    ['paid-media report', () => renderPaidMediaReport({ assessment, request, signals })],
    ['growth report', () => renderGrowthReport({ assessment, request, signals })],
    ['paid-media report, 60 findings', () => renderPaidMediaReport({ assessment: long, request: longRequest, signals })],
    ['growth report, 60 findings', () => renderGrowthReport({ assessment: long, request: longRequest, signals })],
  ];
  const rows = cases.map(([name, render]) => {
    render();
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 30; i++) {
      const started = performance.now();
      bytes = render().length;
      times.push(performance.now() - started);
    }
    return { name, findings: name.includes('60') ? 60 : assessment.findings.length, p50Ms: median(times), maxMs: Math.max(...times), bytes };
  });
  console.log('\nPDF reports (30 runs each)');
  console.log(table(['report', 'findings', 'p50 ms', 'max ms', 'size KiB'], rows.map((r) => [r.name, String(r.findings), fmt(r.p50Ms, 1), fmt(r.maxMs, 1), fmt(r.bytes / 1024, 1)])));
  return rows;
}

/** A site of 12 pages (the benchmark page's cards cut to ~20 KB each), every page linking to every other. */
async function crawlFixture(): Promise<{ server: Server; origin: string }> {
  const body = (n: number): string => {
    const links = Array.from({ length: 12 }, (_, i) => `<a href="/p/${String(i)}">Página ${String(i)}</a>`).join(' ');
    return benchPage(20 * 1024).replace('<main>', `<main><nav>${links}</nav><h1>Página ${String(n)}</h1>`).replace(/<title>[^<]*/, `<title>Página ${String(n)}`);
  };
  const server = createServer((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    const m = /^\/p\/(\d+)$/.exec(req.url ?? '');
    if (m) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body(Number(m[1])));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}` };
}

async function crawl() {
  const { server, origin } = await crawlFixture();
  const guard = offline();
  const deps = { guard, userAgent: 'aduana-bench', fetchTimeoutMs: 10_000, maxBodyBytes: 5 * 1024 * 1024, maxLinkChecks: 50, maxLinksPerPage: 1_000, robots: { robotsMaxRules: 2_000, robotsMaxRuleLength: 1_024 } };
  const times: number[] = [];
  let pages = 0;
  let checked = 0;
  for (let i = 0; i < 10; i++) {
    const [result, ms] = await timed(() => crawlSite(`${origin}/p/0`, { maxPages: 10 }, deps));
    times.push(ms);
    pages = result.pages.length;
    checked = result.linksChecked;
  }
  await guard.close();
  server.close();
  const row = { pages, linksChecked: checked, p50Ms: median(times), maxMs: Math.max(...times) };
  console.log('\nStatic crawl on loopback (10 runs)');
  console.log(table(['pages', 'HEAD checks', 'p50 ms', 'max ms'], [[String(pages), String(checked), fmt(row.p50Ms, 1), fmt(row.maxMs, 1)]]));
  return row;
}

/**
 * Memory in KiB of every process descended from this one (Chromium and its helpers), from /proc: PSS (shared pages
 * divided among the processes sharing them), so the sum is not inflated by the libraries every helper maps.
 */
function childrenPssKiB(): number {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
      const rollup = readFileSync(`/proc/${entry}/smaps_rollup`, 'utf8');
      rss.set(Number(entry), Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0));
    } catch {
      // the process ended meanwhile
    }
  }
  const mine = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (!mine.has(pid) && mine.has(parent)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  let total = 0;
  for (const pid of mine) if (pid !== process.pid) total += rss.get(pid) ?? 0;
  return total;
}

function memory(label: string) {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { label, nodeRssMiB: m.rss / 2 ** 20, heapUsedMiB: m.heapUsed / 2 ** 20, chromiumPssMiB: childrenPssKiB() / 1024 };
}

async function observation() {
  const page = benchPage(60 * 1024);
  const image = Buffer.alloc(300 * 1024, 7);
  const server = createServer((req, res) => {
    if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page.replace('<main>', '<main><img src="/hero.bin" width="600" height="300" alt="hero">'));
    if (req.url === '/hero.bin') return void res.writeHead(200, { 'content-type': 'image/png' }).end(image);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
  const guard = offline();
  const host = new BrowserHost({ executablePath: CHROMIUM, launchTimeoutMs: 30_000, guard, connectTimeoutMs: 5_000 });
  const deps = { browsers: host, guard, budgetMs: 30_000, settleMs: 1_000, connectTimeoutMs: 5_000, maxConsoleErrors: 50 };
  const before = memory('before the browser');
  const [, coldMs] = await timed(() => observePage(url, deps));
  await new Promise((r) => setTimeout(r, 1_000));
  const idle = memory('browser idle, after 1 rendering');
  const warm: number[] = [];
  for (let i = 0; i < 20; i++) warm.push((await timed(() => observePage(url, deps)))[1]);
  await new Promise((r) => setTimeout(r, 1_000));
  const after = memory('browser idle, after 21 renderings');
  await host.close();
  await guard.close();
  server.close();
  const timing = { coldMs, warmP50Ms: median(warm), warmMaxMs: Math.max(...warm) };
  console.log('\nRendered-page observation (Chromium, loopback page of 60 KB + a 300 KB image; settle 1 s)');
  console.log(table(['cold ms (launch included)', 'warm p50 ms (20 runs)', 'warm max ms'], [[fmt(coldMs, 0), fmt(timing.warmP50Ms, 0), fmt(timing.warmMaxMs, 0)]]));
  const mem = [before, idle, after];
  console.log('\nMemory (after a forced GC)');
  console.log(table(['when', 'node RSS MiB', 'node heap MiB', 'Chromium PSS MiB'], mem.map((m) => [m.label, fmt(m.nodeRssMiB, 1), fmt(m.heapUsedMiB, 1), fmt(m.chromiumPssMiB, 1)])));
  return { timing, memory: mem };
}

const results = { reports: reports(), crawl: await crawl(), observation: await observation() };
console.log(`\nresults: ${writeResults('scanner-engines', results)}`);
