/**
 * Ledger throughput on a real LMDB environment (ext4 temp dir, fsync on): durable single appends from 64 concurrent
 * callers, batches of 100, group-committed proxy appends, and verification. Prints each figure beside its target.
 *
 * Run: `npm run bench:ledger` (or `node bench/dist/ledger-throughput.js [seconds per phase]` after `npx tsc -b`).
 * LEDGER_BENCH_DIR picks the data directory (default: the OS temp dir; it must be on a real disk to mean anything);
 * LEDGER_COMPRESSION=all (or true) stores every record compressed, as the gateway's setting of that name does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '@aduana/shared';
// Relative on purpose: @aduana/gateway exports no ledger entry point yet (tsc resolves this through the project reference).
import { Ledger, type LedgerInput } from '@aduana/gateway/ledger';

const seconds = Number(process.argv[2] ?? 3);
const dir = mkdtempSync(join(process.env.LEDGER_BENCH_DIR ?? tmpdir(), 'aduana-ledger-bench-'));
const root = openStore(dir, 'gateway', { mapSize: 1024 * 1024 * 1024 });
const ledger = Ledger.open(root, { keyDir: dir, compress: ['true', 'all'].includes(process.env.LEDGER_COMPRESSION ?? '') });

let counter = 0;
function input(worker: number): LedgerInput {
  counter++;
  return {
    event_type: counter % 3 === 0 ? 'llm_call' : 'tool_call',
    payload: { n: counter, tool: 'search', args: { q: 'quarterly revenue by region', top_k: 10 }, note: 'x'.repeat(120) },
    metadata: { agent_id: `agent-${worker % 16}`, trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' },
    decision: { decision_id: `dec_${counter}`, execution_status: 'ALLOW', risk_score: 12.5 },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

interface Phase {
  events: number;
  perSec: number;
  p50: number;
  p99: number;
  /** CPU time of the whole process (all threads: JS, LMDB writer, verify worker) per event. */
  cpuUs: number;
}

/** `workers` loops calling `once` for `seconds`; latency per call, throughput in events. */
async function phase(workers: number, once: (worker: number) => Promise<number>): Promise<Phase> {
  const latencies: number[] = [];
  let events = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const done = await once(w); // not `events += await …`: that reads `events` before the await and loses updates
        events += done;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  return { events, perSec: events / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), cpuUs: (used.user + used.system) / events };
}

const single = await phase(64, async (w) => (await ledger.append('single', [input(w)])).length);
const batch = await phase(16, async (w) => (await ledger.append('batch', Array.from({ length: 100 }, () => input(w)))).length);
const grouped = await phase(64, async (w) => {
  await ledger.appendGrouped('proxy', input(w));
  return 1;
});
await root.flushed;

const verifyCpu = process.cpuUsage();
const t0 = performance.now();
const report = await ledger.verify('batch');
const verifySeconds = (performance.now() - t0) / 1000;
const verifyUsed = process.cpuUsage(verifyCpu);
if (!report.ok) throw new Error(`verify failed: ${report.reason}`);

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => n.toFixed(1);
const cpu = (us: number): string => us.toFixed(1);
// The machine is shared: the load average says how much of its 2 cores this run could have; CPU µs per event is the
// cost independent of that.
console.log(`ledger throughput, ${seconds} s per phase, Node ${process.version}, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}, data in ${dir}`);
console.table([
  { phase: 'durable single appends, 64 callers', 'events/s': fmt(single.perSec), target: '≥ 10,000', 'p50 ms': ms(single.p50), 'p99 ms': ms(single.p99), 'cpu µs/event': cpu(single.cpuUs) },
  { phase: 'durable batches of 100, 16 callers', 'events/s': fmt(batch.perSec), target: '≥ 50,000', 'p50 ms': ms(batch.p50), 'p99 ms': ms(batch.p99), 'cpu µs/event': cpu(batch.cpuUs) },
  { phase: 'appendGrouped (5 ms window), 64 callers', 'events/s': fmt(grouped.perSec), target: '-', 'p50 ms': ms(grouped.p50), 'p99 ms': ms(grouped.p99), 'cpu µs/event': cpu(grouped.cpuUs) },
  {
    phase: `verify (${fmt(report.checked)} entries)`,
    'events/s': fmt(report.checked / verifySeconds),
    target: '≥ 200,000',
    'p50 ms': '-',
    'p99 ms': '-',
    'cpu µs/event': cpu((verifyUsed.user + verifyUsed.system) / report.checked),
  },
]);

await ledger.close();
await root.close();
rmSync(dir, { recursive: true, force: true });
