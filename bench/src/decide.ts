/**
 * Decision engine benchmark (targets in docs/benchmarks.md).
 *  1. In-process: one ~1 KB action evaluated by a compiled RUNTIME_PAID_POLICIES set (tinybench).
 *  2. Over HTTP: POST /v1/decide against `aduana gateway` in its own process, autocannon in this one. Beside req/s,
 *     the gateway's CPU per decision (from /proc): the load generator shares the 2 cores, so req/s moves with it.
 *     `--cpu-prof DIR` writes the gateway's V8 CPU profile there when it stops.
 * Targets (2-core machine): evaluation p50 ≤ 20 µs, p99 ≤ 100 µs; HTTP ≥ 10,000 req/s with p99 ≤ 5 ms.
 */
import { actionText, compilePolicySet, PACKS, PolicyValidator, TenantState, type DecideRequest, type PolicyRecord } from '@aduana/gateway';
import { microBench, table, fmt } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';
import { spawnGateway } from './harness/spawn-gateway.js';
import { benchTenant } from './harness/bench-tenant.js';
import { decideBody } from './harness/request-body.js';
import { runLoad } from './harness/load.js';
import { cpuPerCallUs, threadCpuMs } from './harness/stats.js';

const argv = process.argv.slice(2);
const args = new Set(argv);
const profDir = args.has('--cpu-prof') ? argv[argv.indexOf('--cpu-prof') + 1] : undefined;
const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);

async function inProcess() {
  const validator = new PolicyValidator();
  const now = new Date().toISOString();
  const policies: PolicyRecord[] = PACKS.RUNTIME_PAID_POLICIES.map((p, i) => ({
    id: `pol_${i}`,
    tenant_id: 'bench',
    name: p.name,
    type: p.type,
    risk: p.risk,
    enabled: true,
    rules: validator.rules(p.type, p.rules),
    created_at: now,
    updated_at: now,
    pack_key: p.key,
  }));
  const set = compilePolicySet('bench', 1, policies);
  const state = new TenantState('bench');
  const agents = Array.from({ length: 4096 }, (_, i) => `agent-${i}`);
  const body = decideBody('agent-0') as unknown as DecideRequest;
  const text = actionText(body);
  let i = 0;
  const [res] = await microBench({
    'evaluate RUNTIME_PAID_POLICIES, 1 KB action': () =>
      set.evaluate({ tenantId: 'bench', agentId: agents[i++ & 4095] as string, sessionId: '', riskBudget: null, agentRiskBudget: null, text, now: Date.now() }, state),
  });
  const r = res!;
  console.log(`\nIn-process evaluation (${text.length} chars of action text, ${set.size} policies)`);
  console.log(table(['task', 'ops/s', 'mean µs', 'p50 µs', 'p99 µs', 'target'], [[r.name, r.opsPerSec, fmt(r.meanUs, 2), fmt(r.p50Us, 2), fmt(r.p99Us, 2), 'p50 ≤ 20, p99 ≤ 100']]));
  return r;
}

async function overHttp() {
  const gw = profDir ? await spawnGateway({}, ['--cpu-prof', `--cpu-prof-dir=${profDir}`]) : await spawnGateway();
  try {
    const token = await benchTenant(gw);
    // The pack's agent rate limit (120/min) would turn most of the run into DENYs: one agent per body.
    const bodies = Array.from({ length: 1024 }, (_, i) => JSON.stringify(decideBody(`agent-${i}`)));
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const load = (c: number, d: number) => runLoad({ url: `${gw.agentsUrl}/v1/decide`, method: 'POST', headers, bodies, connections: c, durationS: d });
    await load(16, 2); // warm-up
    const runs = [];
    for (const c of [16, connections]) {
      const cpu0 = await threadCpuMs(gw.pid);
      const r = await load(c, durationS);
      const cpu = cpuPerCallUs(cpu0, await threadCpuMs(gw.pid), r.reqPerSec * durationS);
      runs.push({ connections: c, ...r, cpuUsPerDecision: cpu.all, mainThreadCpuUsPerDecision: cpu.main, busiestOtherThreadCpuUsPerDecision: cpu.writer, nextOtherThreadCpuUsPerDecision: cpu.next });
    }
    const threads = Number(process.env.GATEWAY_THREADS ?? 1);
    console.log(`\nPOST /v1/decide over HTTP (${durationS} s per run, ~${bodies[0]!.length} B bodies, GATEWAY_THREADS=${threads}, load generator: ${runs[0]!.tool} on the same 2 cores; gateway started in ${fmt(gw.startupMs, 0)} ms)`);
    // With one thread the busiest other thread is the ledger's writer; with two, a request thread, then the writer.
    console.log(
      table(
        ['connections', 'req/s', 'CPU µs/decision: main thread', 'busiest other', 'next other', 'all threads', 'p50 ms', 'p90 ms', 'p99 ms', 'non-2xx', 'errors', 'target'],
        runs.map((r) => [r.connections, Math.round(r.reqPerSec), fmt(r.mainThreadCpuUsPerDecision, 1), fmt(r.busiestOtherThreadCpuUsPerDecision, 1), fmt(r.nextOtherThreadCpuUsPerDecision, 1), fmt(r.cpuUsPerDecision, 1), fmt(r.p50, 2), fmt(r.p90, 2), fmt(r.p99, 2), r.non2xx, r.errors, '≥ 12,000 req/s, p99 ≤ 5 ms; request thread ≤ 80 µs']),
      ),
    );
    return { runs, startupMs: gw.startupMs };
  } finally {
    await gw.stop();
  }
}

const results: Record<string, unknown> = {};
if (!args.has('--http-only')) results.inProcess = await inProcess();
if (!args.has('--in-process-only')) results.http = await overHttp();
console.log(`\nresults: ${writeResults('decide', results)}`);
