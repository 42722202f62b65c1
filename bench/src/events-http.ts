/**
 * Durable ingest over HTTP (`npm run bench:events`): POST /v1/events with 64 concurrent clients and batches of 100 on
 * /v1/events/ingest/batch, against `aduana gateway` in its own process; then GET /v1/events/verify over the chain
 * that built up. Every 2xx was flushed to disk before it was sent.
 * Targets (2-core machine): ≥ 15,000 events/s single (10,000 before the hot-path work raised it), ≥ 50,000 events/s in batches, verify ≥ 200,000 entries/s.
 */
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { spawnGateway } from './harness/spawn-gateway.js';
import { aduana } from './harness/cli.js';
import { table, fmt } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';

const DURATION = Number(process.env.BENCH_DURATION_S ?? 8);

function event(i: number) {
  return { event_type: 'tool.invoked', payload: { tool: 'search_customers', step: i, args: { region: 'south', page: 1 } }, metadata: { agent_id: `agent-${i & 63}`, session_id: 'bench' } };
}

async function main() {
  const gw = await spawnGateway();
  const env = { DATA_DIR: gw.dataDir };
  try {
    aduana(['tenant', 'create', 'bench', '--plan', 'enterprise'], env);
    const token = aduana(['token', 'create', '--tenant', 'bench', '--role', 'admin'], env).trim();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await fetch(`${gw.url}/v1/policies/apply-pack`, { method: 'POST', headers, body: '{"pack":"RUNTIME_PAID_POLICIES"}' });
    const singles = Array.from({ length: 1024 }, (_, i) => JSON.stringify(event(i)));
    const batch = JSON.stringify({ events: Array.from({ length: 100 }, (_, i) => event(i)) });
    let n = 0;
    await autocannon({ url: `${gw.url}/v1/events`, method: 'POST', connections: 16, duration: 2, headers, requests: [{ setupRequest: (r) => ({ ...r, body: singles[n++ & 1023] }) }] });
    const single = await autocannon({ url: `${gw.url}/v1/events`, method: 'POST', connections: 64, duration: DURATION, headers, requests: [{ setupRequest: (r) => ({ ...r, body: singles[n++ & 1023] }) }] });
    const batched = await autocannon({ url: `${gw.url}/v1/events/ingest/batch`, method: 'POST', connections: 8, duration: DURATION, headers, body: batch });
    const t0 = performance.now();
    const v = (await (await fetch(`${gw.url}/v1/events/verify`, { headers })).json()) as { ok: boolean; checked: number };
    const verifyMs = performance.now() - t0;
    const results = {
      single: { eventsPerSec: single.requests.average, p50: single.latency.p50, p99: single.latency.p99, non2xx: single.non2xx, connections: 64 },
      batch100: { eventsPerSec: batched.requests.average * 100, requestsPerSec: batched.requests.average, p50: batched.latency.p50, p99: batched.latency.p99, non2xx: batched.non2xx, connections: 8 },
      verify: { ok: v.ok, entries: v.checked, ms: verifyMs, entriesPerSec: v.checked / (verifyMs / 1000) },
    };
    console.log(`\nDurable ingest over HTTP (${DURATION} s each; RUNTIME_PAID_POLICIES scoring every event)`);
    console.log(
      table(
        ['measure', 'events/s', 'p50 ms', 'p99 ms', 'non-2xx', 'target'],
        [
          ['POST /v1/events, 64 clients', Math.round(results.single.eventsPerSec), single.latency.p50, single.latency.p99, single.non2xx, '≥ 15,000'],
          ['batch of 100, 8 clients', Math.round(results.batch100.eventsPerSec), batched.latency.p50, batched.latency.p99, batched.non2xx, '≥ 50,000'],
          [`GET /v1/events/verify (${v.checked} entries, ${fmt(verifyMs, 0)} ms, ok=${v.ok})`, Math.round(results.verify.entriesPerSec), '', '', '', '≥ 200,000'],
        ],
      ),
    );
    console.log(`\nresults: ${writeResults('events-http', results)}`);
  } finally {
    await gw.stop();
  }
}

await main();
