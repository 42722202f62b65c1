/**
 * The gateway's memory under sustained load (`npm run bench:soak`): what a sidecar holds after minutes of streams and
 * whole calls, not what it holds after a burst.
 *
 * A fresh `aduana gateway` (its own process, RUNTIME_PAID_POLICIES, default settings unless the environment sets
 * them) and the mock provider (its own process), on loopback. For --duration seconds: --streams clients each keep one
 * streamed chat completion open at a time (the mock's held-open stream: 20 content events 20 ms apart, then usage),
 * and --connections more send whole calls without pause (wrk or autocannon, from their own process): chat
 * completions, Responses API and Anthropic Messages calls in turn, agent ids rotating over 4,096. Every --interval
 * seconds the gateway's resident memory is read from /proc/<pid>/status: RSS, and its anonymous part (RssAnon: heaps,
 * stacks, native allocations; the rest is file-backed, the binary's code and LMDB's mapped file, which the kernel can
 * reclaim). Then --quiet seconds without traffic, and a last reading.
 *
 *   --duration S       seconds of load (default 60)
 *   --streams N        concurrent streamed calls (default 100)
 *   --connections N    connections sending whole calls (default 32; 0: streams only)
 *   --interval S       seconds between readings (default 1)
 *   --quiet S          seconds without traffic before the last reading (default 15)
 *   --request-log      turn the tenant's request log on (every call sampled) for the run
 *   --gateway-flags S  V8 flags for the gateway, space-separated ('' for none; default: gateway/package.json's)
 *
 * GATEWAY_THREADS, LEDGER_WRITER and the rest pass through from the environment to the gateway.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { spawnMockProvider } from './harness/spawn-mock-provider.js';
import { gatewayNodeFlags, spawnGateway, type SpawnedGateway } from './harness/spawn-gateway.js';
import { benchTenant } from './harness/bench-tenant.js';
import { runLoad, type LoadResult } from './harness/load.js';
import { SYSTEM, USER, chatBody } from './harness/chat-request.js';
import { fmt, table } from './harness/micro-bench.js';
import { processCpuMs } from './harness/stats.js';
import { writeResults } from './harness/results-file.js';

const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    streams: { type: 'string', default: '100' },
    connections: { type: 'string', default: '32' },
    interval: { type: 'string', default: '1' },
    quiet: { type: 'string', default: '15' },
    'request-log': { type: 'boolean', default: false },
    'gateway-flags': { type: 'string' },
  },
});
const DURATION = Number(opt.duration);
const STREAMS = Number(opt.streams);
const CONNECTIONS = Number(opt.connections);
const INTERVAL = Number(opt.interval);
const QUIET = Number(opt.quiet);
/** Seconds of each format's whole calls. */
const WHOLE_S = Math.max(1, Math.round(DURATION / 3));

/** One reading of the gateway process, MiB (threads: how many the process runs). */
interface Reading {
  atS: number;
  rss: number;
  anon: number;
  file: number;
  threads: number;
}

function read(pid: number, t0: number): Reading | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { atS: (performance.now() - t0) / 1000, rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), threads: Number(/Threads:\s+(\d+)/.exec(status)?.[1] ?? NaN) };
}

/** The whole calls, in turn: chat completions, Responses API, Anthropic Messages (each through its own route). */
const WHOLE: { path: string; body: string; headers: Record<string, string> }[] = [
  { path: '/v1/proxy/chat/completions', body: chatBody(false), headers: {} },
  { path: '/v1/proxy/responses', body: JSON.stringify({ model: 'gpt-4o-mini', instructions: SYSTEM, input: [{ role: 'user', content: USER }] }), headers: {} },
  { path: '/v1/proxy/anthropic/v1/messages', body: JSON.stringify({ model: 'claude-sonnet-4', max_tokens: 256, system: SYSTEM, messages: [{ role: 'user', content: USER }] }), headers: { 'anthropic-version': '2023-06-01' } },
];

/** What one soak run did, and the gateway's memory at its end. */
interface Run {
  streamsDone: number;
  streamErrors: number;
  whole: LoadResult[];
  /** The gateway's CPU over the load, all its threads, ms. */
  cpuMs: number;
  afterLoad: Reading | null;
  idle: Reading | null;
}

/** The load itself: the tenant, the streams and the whole calls side by side, a reading every --interval s into `readings`. */
async function soak(gw: SpawnedGateway, readings: Reading[], t0: number): Promise<Run> {
  const token = await benchTenant(gw);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (opt['request-log']) {
    const r = await fetch(`${gw.url}/v1/settings/request-log`, { method: 'PUT', headers, body: JSON.stringify({ enabled: true, sample_rate: 1 }) });
    if (!r.ok) throw new Error(`request log: HTTP ${r.status}`);
  }
  const sample = () => {
    const r = read(gw.pid, t0);
    if (r) readings.push(r);
  };
  const timer = setInterval(sample, INTERVAL * 1000);
  sample();
  const cpu0 = await processCpuMs(gw.pid);
  const until = performance.now() + DURATION * 1000;
  const pool = new Pool(gw.agentsUrl, { connections: STREAMS });
  const streamBody = chatBody(true, ' slow-stream');
  let seq = 0;
  let streamsDone = 0;
  let streamErrors = 0;
  const streamer = async () => {
    while (performance.now() < until) {
      try {
        const res = await pool.request({ method: 'POST', path: '/v1/proxy/chat/completions', headers: { ...headers, 'x-svc-agent-id': `soak-stream-${seq++ & 4095}` }, body: streamBody });
        for await (const chunk of res.body) void chunk;
        if (res.statusCode === 200) streamsDone++;
        else streamErrors++;
      } catch {
        streamErrors++;
      }
    }
  };
  // Whole calls in three runs of a third of the time each, one format after another, beside the streams.
  const wholeCalls = async () => {
    const out: LoadResult[] = [];
    if (CONNECTIONS === 0) return out;
    for (const w of WHOLE) {
      out.push(await runLoad({ url: `${gw.agentsUrl}${w.path}`, method: 'POST', headers: { ...headers, ...w.headers }, bodies: [w.body], connections: CONNECTIONS, durationS: WHOLE_S, rotateHeader: { name: 'x-svc-agent-id', prefix: 'soak-agent-', count: 4096 } }));
    }
    return out;
  };
  const [, whole] = await Promise.all([Promise.all(Array.from({ length: STREAMS }, streamer)), wholeCalls()]);
  const cpuMs = (await processCpuMs(gw.pid)) - cpu0;
  await pool.close();
  const afterLoad = read(gw.pid, t0);
  await new Promise((r) => setTimeout(r, QUIET * 1000));
  const idle = read(gw.pid, t0);
  clearInterval(timer);
  return { streamsDone, streamErrors, whole, cpuMs, afterLoad, idle };
}

async function main(): Promise<void> {
  const mock = await spawnMockProvider();
  const origin = new URL(mock.url).origin;
  const flags = opt['gateway-flags'] === undefined ? gatewayNodeFlags() : opt['gateway-flags'].split(' ').filter(Boolean);
  const gw = await spawnGateway(
    {
      UPSTREAM_BASE_URL: mock.url,
      UPSTREAM_API_KEY: 'sk-bench',
      UPSTREAM_ANTHROPIC_BASE_URL: origin,
      UPSTREAM_ANTHROPIC_API_KEY: 'sk-bench',
      ...(opt['request-log'] ? { REQUEST_LOG_KEY: 'ab'.repeat(32) } : {}),
    },
    flags,
  );
  console.log(`gateway V8 flags: ${flags.join(' ') || '(none)'}`);
  const t0 = performance.now();
  const readings: Reading[] = [];
  const started = read(gw.pid, t0);
  let run: Run;
  try {
    run = await soak(gw, readings, t0);
  } finally {
    await gw.stop();
    mock.stop();
  }
  const { streamsDone, streamErrors, whole, cpuMs, afterLoad, idle } = run;

  const peakRss = readings.reduce((a, r) => (r.rss > a.rss ? r : a), readings[0] as Reading);
  const peakAnon = readings.reduce((a, r) => (r.anon > a.anon ? r : a), readings[0] as Reading);
  const step = Math.max(1, Math.round(readings.length / 24));
  const mib = (v: number) => fmt(v, 1);
  console.log(`\nGateway memory over ${DURATION} s: ${STREAMS} held-open streams, ${CONNECTIONS} connections of whole calls (MiB; own = RssAnon)`);
  console.log(table(['s', 'RSS', 'own', 'file-backed', 'threads'], readings.filter((_, i) => i % step === 0 || i === readings.length - 1).map((r) => [fmt(r.atS, 0), mib(r.rss), mib(r.anon), mib(r.file), r.threads])));
  const calls = whole.reduce((a, r) => a + r.reqPerSec * WHOLE_S, 0);
  console.log(`\nstreams completed ${streamsDone} (errors ${streamErrors}); whole calls ~${Math.round(calls)} (non-2xx ${whole.reduce((a, r) => a + r.non2xx, 0)}, ${whole[0]?.tool ?? '-'})`);
  // All its threads: the machine's load moves this less than it moves throughput, but it still moves it.
  console.log(`gateway CPU per call (streamed and whole, all its threads): ${fmt((cpuMs * 1000) / Math.max(1, streamsDone + calls), 0)} µs`);
  if (started) console.log(`started (paid pack not yet applied):   RSS ${mib(started.rss)}, own ${mib(started.anon)}`);
  console.log(`peak RSS:                              ${mib(peakRss.rss)} at ${fmt(peakRss.atS, 0)} s (own ${mib(peakRss.anon)}) (target ≤ 200 MB = 190.7 MiB under 100 streams)`);
  console.log(`peak own memory:                       ${mib(peakAnon.anon)} at ${fmt(peakAnon.atS, 0)} s`);
  if (afterLoad) console.log(`as the load stopped:                   RSS ${mib(afterLoad.rss)}, own ${mib(afterLoad.anon)}`);
  if (idle) console.log(`after ${QUIET} s without traffic:          RSS ${mib(idle.rss)}, own ${mib(idle.anon)}`);
  console.log(`\nresults: ${writeResults('soak', { durationS: DURATION, gatewayNodeFlags: flags, streams: STREAMS, connections: CONNECTIONS, requestLog: opt['request-log'], streamsDone, streamErrors, whole, cpuPerCallUs: (cpuMs * 1000) / Math.max(1, streamsDone + calls), started, peakRss, peakAnon, afterLoad, idle, readings })}`);
}

await main();
