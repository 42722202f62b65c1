/**
 * Durable ingest over HTTP (`npm run bench:events`): POST /v1/events with 64 concurrent clients and batches of 100 on
 * /v1/events/ingest/batch, against `aduana gateway` in its own process; then GET /v1/events/verify over the chain
 * that built up. Every 2xx was flushed to disk before it was sent. The load comes from wrk when it is installed
 * (harness/load.ts: a C client costs the 2-core machine far less than a JS one), autocannon otherwise. Beside events/s,
 * the gateway's CPU per event (from /proc), which the machine's load moves far less. `--cpu-prof DIR` writes the
 * gateway's V8 CPU profile there when it stops.
 * Targets (2-core machine): ≥ 15,000 events/s single (10,000 before the hot-path work raised it), ≥ 50,000 events/s in batches, verify ≥ 200,000 entries/s.
 */
import { performance } from 'node:perf_hooks';
import { spawnGateway } from './harness/spawn-gateway.js';
import { runLoad } from './harness/load.js';
import { benchTenant } from './harness/bench-tenant.js';
import { table, fmt } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';
import { cpuPerCallUs, threadCpuMs } from './harness/stats.js';

const DURATION = Number(process.env.BENCH_DURATION_S ?? 8);
const argv = process.argv.slice(2);
const profDir = argv.includes('--cpu-prof') ? argv[argv.indexOf('--cpu-prof') + 1] : undefined;

function event(i: number) {
  return { event_type: 'tool.invoked', payload: { tool: 'search_customers', step: i, args: { region: 'south', page: 1 } }, metadata: { agent_id: `agent-${i & 63}`, session_id: 'bench' } };
}

async function main() {
  const gw = profDir ? await spawnGateway({}, ['--cpu-prof', `--cpu-prof-dir=${profDir}`]) : await spawnGateway();
  try {
    const token = await benchTenant(gw);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const singles = Array.from({ length: 1024 }, (_, i) => JSON.stringify(event(i)));
    const batch = JSON.stringify({ events: Array.from({ length: 100 }, (_, i) => event(i)) });
    const post = (path: string, bodies: string[], connections: number, durationS: number) => runLoad({ url: `${gw.agentsUrl}${path}`, method: 'POST', headers, bodies, connections, durationS });
    /** A load run with the gateway's CPU per event over it. */
    const measured = async (path: string, bodies: string[], connections: number, eventsPerRequest: number) => {
      const cpu0 = await threadCpuMs(gw.pid);
      const r = await post(path, bodies, connections, DURATION);
      const cpu = cpuPerCallUs(cpu0, await threadCpuMs(gw.pid), r.reqPerSec * eventsPerRequest * DURATION);
      return { ...r, cpuUsPerEvent: cpu.all, requestThreadCpuUsPerEvent: cpu.main, writerThreadCpuUsPerEvent: cpu.writer };
    };
    await post('/v1/events', singles, 16, 2); // warm-up
    const single = await measured('/v1/events', singles, 64, 1);
    const batched = await measured('/v1/events/ingest/batch', [batch], 8, 100);
    const t0 = performance.now();
    const v = (await (await fetch(`${gw.url}/v1/events/verify`, { headers })).json()) as { ok: boolean; checked: number };
    const verifyMs = performance.now() - t0;
    const results = {
      tool: single.tool,
      single: { eventsPerSec: single.reqPerSec, cpuUsPerEvent: single.cpuUsPerEvent, requestThreadCpuUsPerEvent: single.requestThreadCpuUsPerEvent, writerThreadCpuUsPerEvent: single.writerThreadCpuUsPerEvent, p50: single.p50, p99: single.p99, non2xx: single.non2xx, errors: single.errors, connections: 64 },
      batch100: { eventsPerSec: batched.reqPerSec * 100, cpuUsPerEvent: batched.cpuUsPerEvent, requestThreadCpuUsPerEvent: batched.requestThreadCpuUsPerEvent, writerThreadCpuUsPerEvent: batched.writerThreadCpuUsPerEvent, requestsPerSec: batched.reqPerSec, p50: batched.p50, p99: batched.p99, non2xx: batched.non2xx, errors: batched.errors, connections: 8 },
      verify: { ok: v.ok, entries: v.checked, ms: verifyMs, entriesPerSec: v.checked / (verifyMs / 1000) },
    };
    console.log(`\nDurable ingest over HTTP (${DURATION} s each; RUNTIME_PAID_POLICIES scoring every event; load from ${single.tool})`);
    console.log(
      table(
        ['measure', 'events/s', 'CPU µs/event: request thread', 'writer thread', 'all threads', 'p50 ms', 'p99 ms', 'non-2xx or errors', 'target'],
        [
          ['POST /v1/events, 64 clients', Math.round(results.single.eventsPerSec), fmt(single.requestThreadCpuUsPerEvent, 1), fmt(single.writerThreadCpuUsPerEvent, 1), fmt(single.cpuUsPerEvent, 1), fmt(single.p50, 1), fmt(single.p99, 1), single.non2xx + single.errors, '≥ 15,000'],
          ['batch of 100, 8 clients', Math.round(results.batch100.eventsPerSec), fmt(batched.requestThreadCpuUsPerEvent, 1), fmt(batched.writerThreadCpuUsPerEvent, 1), fmt(batched.cpuUsPerEvent, 1), fmt(batched.p50, 1), fmt(batched.p99, 1), batched.non2xx + batched.errors, '≥ 50,000'],
          [`GET /v1/events/verify (${v.checked} entries, ${fmt(verifyMs, 0)} ms, ok=${v.ok})`, Math.round(results.verify.entriesPerSec), '', '', '', '', '', '', '≥ 200,000'],
        ],
      ),
    );
    console.log(`\nresults: ${writeResults('events-http', results)}`);
  } finally {
    await gw.stop();
  }
}

await main();
