/**
 * What agents and telemetry add to each decision on the request path, in-process (docs/benchmarks-history.md, "What
 * agents and telemetry cost"): the registry lookup every decide and proxied call makes (`agents.admit`), and the
 * audit trail's telemetry observer (metric samples, Prometheus counters, the agent's risk score), with the OTLP
 * instruments off and on. Compare with the
 * ~0.5 ms of gateway CPU a proxied call costs (bench:overhead) or the evaluation itself (bench:decide).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type RunningGateway } from '@aduana/gateway';
import { fmt, microBench, table } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';

async function gateway(otlp: boolean): Promise<{ gw: RunningGateway; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'aduana-bench-agents-'));
  // An OTLP endpoint nobody listens on: the instruments are on, the queue retries off the measured path.
  const config = loadGatewayConfig({}, { dataDir: dir, port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', ...(otlp ? { otlpEndpoint: 'http://127.0.0.1:9' } : {}) });
  const gw = await startGateway({ config, logger: createLogger('bench', { level: 'silent' }) });
  return { gw, dir };
}

const agents = Array.from({ length: 4096 }, (_, i) => `agent-${i}`);
const results: Record<string, unknown> = {};
const rows: (string | number)[][] = [];
for (const otlp of [false, true]) {
  const { gw, dir } = await gateway(otlp);
  try {
    const { agents: registry, telemetry } = gw.deps;
    for (const a of agents) registry.admit('bench', a, Date.now());
    const record = {
      decision_id: 'dec_bench', tenant_id: 'bench', agent_id: 'agent-0', execution_status: 'ALLOW' as const, risk_score: 12, event_type: 'proxy.chat',
      trace_id: '0'.repeat(32), created_at: new Date().toISOString(), rule: '', policy_version: 'v1', policies_evaluated: 6, triggered: [], resolution: null,
    };
    let i = 0;
    const res = await microBench({
      [`agents.admit${otlp ? ' (OTLP on)' : ''}`]: () => registry.admit('bench', agents[i++ & 4095] as string, Date.now()),
      [`telemetry observer per decision${otlp ? ' (OTLP on)' : ''}`]: () => {
        record.agent_id = agents[i++ & 4095] as string;
        telemetry.onDecision(record, 0.4, 'completed', 0.0001, null);
      },
    });
    for (const r of res) {
      rows.push([r.name, r.opsPerSec, fmt(r.meanUs, 3), fmt(r.p50Us, 3), fmt(r.p99Us, 3)]);
      results[r.name] = r;
    }
  } finally {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log('\nAgents and telemetry on the request path, per decision (in-process, 4,096 agents)');
console.log(table(['task', 'ops/s', 'mean µs', 'p50 µs', 'p99 µs'], rows));
writeResults('agents-telemetry', results);
