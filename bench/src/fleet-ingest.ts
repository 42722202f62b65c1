/**
 * Control-plane ledger ingest (`npm run bench:fleet-ingest`): entries/s from sidecars into PostgreSQL, verified as
 * they are stored (every hash recomputed, links, Merkle frontier, checkpoint signatures), with the server's default
 * durability (fsync on, synchronous_commit on: a batch is on disk before it is acknowledged).
 *   - route: POST /v1/fleet/ledger on a real HTTP server (uWebSockets.js, sidecar-token auth, JSON parse, verify,
 *     one transaction per batch) in a process of its own, CHAINS sidecar chains shipping concurrently from this
 *     process, each its batches in order (at most CHAINS batches in flight);
 *   - in-process: the same batches handed to the archive directly (no HTTP, no JSON): verify and store only.
 * Reported per entry: the control plane's Node CPU, PostgreSQL's CPU (all its processes, from /proc) and the load
 * generator's, so where the time goes is visible on a machine where all three share the cores.
 * The entries come from a real sidecar ledger (LMDB in a temp dir); each chain ships the same entries under its own
 * instance id, so the chains are separate and concurrent.
 * Env: FLEET_BENCH_ENTRIES (per chain, default 50,000), FLEET_BENCH_CHAINS (default 4), FLEET_BENCH_BATCH (default 5,000, the shipper's SHIP_BATCH_MAX).
 * Target (2-core machine): ≥ 50,000 entries/s through the route.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { generateToken, openStore } from '@aduana/shared';
import { startLocalPostgres } from '@aduana/shared/local-servers';
import { Ledger, type LedgerEntry, type Checkpoint } from '@aduana/gateway/ledger';
import { MIGRATIONS, PgLedgerArchive, SHIPPING_FORMAT, type ShippedBatch } from '@aduana/gateway/fleet/shipping';
import { table } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';
import { postgresCpuMeter } from './fleet-ingest/postgres-cpu.js';

const PER_CHAIN = Number(process.env.FLEET_BENCH_ENTRIES ?? 50_000);
const CHAINS = Number(process.env.FLEET_BENCH_CHAINS ?? 4);
const BATCH = Number(process.env.FLEET_BENCH_BATCH ?? 5000);
const TENANT = 'bench';

/** A sidecar ledger of PER_CHAIN entries (checkpoint every 1,000), read back as batches. */
async function sidecarBatches(dir: string): Promise<{ entries: LedgerEntry[][]; checkpoints: Checkpoint[][]; publicKey: Ledger['publicKey'] }> {
  const root = openStore(dir, 'gateway', { mapSize: 4 * 1024 * 1024 * 1024 });
  const ledger = Ledger.open(root, { keyDir: dir, checkpointEvery: 1000 });
  for (let done = 0; done < PER_CHAIN; done += 1000) {
    await ledger.append(
      TENANT,
      Array.from({ length: Math.min(1000, PER_CHAIN - done) }, (_, i) => ({
        event_type: (done + i) % 3 === 0 ? 'llm_call' : 'tool_call',
        payload: { n: done + i, tool: 'search', args: { q: 'quarterly revenue by region', top_k: 10 }, note: 'x'.repeat(120) },
        metadata: { agent_id: `agent-${(done + i) % 16}`, trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' },
        decision: { decision_id: `dec_${done + i}`, execution_status: 'ALLOW', risk_score: 12.5 },
      })),
    );
  }
  await ledger.close();
  const reader = Ledger.open(root, { keyDir: dir });
  const cps = reader.checkpoints(TENANT, { limit: 1_000_000 });
  const entries: LedgerEntry[][] = [];
  const checkpoints: Checkpoint[][] = [];
  for (let from = 0; from < PER_CHAIN; from += BATCH) {
    const page: LedgerEntry[] = [];
    for (let seq = from + 1; seq <= Math.min(PER_CHAIN, from + BATCH); seq++) page.push(reader.get(TENANT, seq)!);
    entries.push(page);
    const within = cps.filter((cp) => cp.tree_size > from && cp.tree_size <= from + page.length);
    // Every batch ends in a checkpoint over its last entry, as the shipper makes it (the control plane requires it).
    if (within[within.length - 1]?.tree_size !== from + page.length) within.push(reader.signCheckpoint(TENANT, from + page.length));
    checkpoints.push(within);
  }
  const publicKey = reader.publicKey;
  await reader.close();
  await root.close();
  return { entries, checkpoints, publicKey };
}

interface ControlPlane {
  port: number;
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

async function startControlPlane(databaseUrl: string, token: string): Promise<ControlPlane> {
  const child = fork(new URL('./fleet-ingest/control-plane-child.js', import.meta.url), [], {
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, BENCH_SIDECAR_TOKEN: token, BENCH_POOL: String(Math.max(4, CHAINS * 2)) },
  });
  const next = <T>(): Promise<T> => new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('exit', (code) => reject(new Error(`the control plane exited (${code})`)));
  });
  const { port } = await next<{ port: number }>();
  return {
    port,
    async cpuSeconds() {
      const answer = next<{ cpu: NodeJS.CpuUsage }>();
      child.send('cpu');
      const { cpu } = await answer;
      return (cpu.user + cpu.system) / 1e6;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      await exited;
    },
  };
}

const processCpuSeconds = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aduana-fleet-bench-'));
  const pgServer = await startLocalPostgres();
  const databaseUrl = await pgServer.createDatabase('fleet_bench');
  const archive = PgLedgerArchive.open(databaseUrl, Math.max(4, CHAINS * 2));
  let controlPlane: ControlPlane | null = null;
  try {
    for (const m of MIGRATIONS) await archive.pool.query(m.sql);
    const pgCpu = (await postgresCpuMeter(archive.pool)) ?? (() => Number.NaN);
    console.log(`building a sidecar ledger of ${PER_CHAIN} entries …`);
    const { entries, checkpoints, publicKey } = await sidecarBatches(dir);
    const batchesFor = (instance: string): ShippedBatch[] =>
      entries.map((page, i) => ({ format: SHIPPING_FORMAT, chain_id: `${instance}/${TENANT}`, tenant_id: TENANT, public_key: publicKey, entries: page, checkpoints: checkpoints[i]! }));
    const total = PER_CHAIN * CHAINS;
    const perEntry = (seconds: number) => Math.round((seconds * 1e6 / total) * 10) / 10;

    // In-process: the archive directly.
    const floorChains = Array.from({ length: CHAINS }, (_, c) => batchesFor(`floor-${c}`));
    let pg0 = pgCpu();
    let cpu0 = processCpuSeconds();
    let t0 = performance.now();
    await Promise.all(floorChains.map(async (batches) => {
      for (const b of batches) await archive.ingest(b, 'sct-bench');
    }));
    const floorS = (performance.now() - t0) / 1000;
    const floor = { node: processCpuSeconds() - cpu0, pg: pgCpu() - pg0 };

    // The route, on a real HTTP server in its own process.
    const token = generateToken('sct');
    controlPlane = await startControlPlane(databaseUrl, token);
    const url = `http://127.0.0.1:${controlPlane.port}/v1/fleet/ledger`;
    const bodies = Array.from({ length: CHAINS }, (_, c) => batchesFor(`route-${c}`).map((b) => JSON.stringify(b)));
    const bytes = bodies[0]!.reduce((n, b) => n + Buffer.byteLength(b), 0) / PER_CHAIN;
    const latencies: number[] = [];
    const cp0 = await controlPlane.cpuSeconds();
    pg0 = pgCpu();
    cpu0 = processCpuSeconds();
    t0 = performance.now();
    await Promise.all(bodies.map(async (chain) => {
      for (const body of chain) {
        const s = performance.now();
        const res = await request(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`route answered ${res.statusCode}: ${text.slice(0, 300)}`);
        latencies.push(performance.now() - s);
      }
    }));
    const routeS = (performance.now() - t0) / 1000;
    const route = { node: (await controlPlane.cpuSeconds()) - cp0, pg: pgCpu() - pg0, client: processCpuSeconds() - cpu0 };
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]! * 10) / 10;
    const stored = Number((await archive.pool.query<{ n: string }>('SELECT count(*) AS n FROM ledger_entries')).rows[0]!.n);
    const size = (await archive.pool.query<{ s: string }>("SELECT pg_total_relation_size('ledger_entries') AS s")).rows[0]!.s;
    const results = {
      chains: CHAINS,
      concurrency: CHAINS,
      entriesPerChain: PER_CHAIN,
      batch: BATCH,
      bodyBytesPerEntry: Math.round(bytes),
      loadAverage1m: loadavg()[0] ?? 0,
      route: {
        entriesPerSec: Math.round(total / routeS),
        seconds: routeS,
        batchP50Ms: pct(0.5),
        batchP99Ms: pct(0.99),
        nodeCpuUsPerEntry: perEntry(route.node),
        postgresCpuUsPerEntry: perEntry(route.pg),
        loadGeneratorCpuUsPerEntry: perEntry(route.client),
      },
      archiveInProcess: { entriesPerSec: Math.round(total / floorS), seconds: floorS, nodeCpuUsPerEntry: perEntry(floor.node), postgresCpuUsPerEntry: perEntry(floor.pg) },
      storedEntries: stored,
      postgresBytesPerEntry: Math.round(Number(size) / stored),
    };
    console.log(`\nControl-plane ledger ingest into PostgreSQL (fsync and synchronous_commit on; ${CHAINS} chains × ${PER_CHAIN} entries, batches of ${BATCH}, ${CHAINS} batches in flight)`);
    console.log(
      table(
        ['path', 'entries/s', 'batch p50 ms', 'batch p99 ms', 'control-plane CPU µs/entry', 'PostgreSQL CPU µs/entry', 'target'],
        [
          ['POST /v1/fleet/ledger (HTTP, verify, store)', results.route.entriesPerSec, results.route.batchP50Ms, results.route.batchP99Ms, results.route.nodeCpuUsPerEntry, results.route.postgresCpuUsPerEntry, '≥ 50,000'],
          ['in-process archive.ingest (verify, store)', results.archiveInProcess.entriesPerSec, '', '', results.archiveInProcess.nodeCpuUsPerEntry, results.archiveInProcess.postgresCpuUsPerEntry, ''],
        ],
      ),
    );
    console.log(`load generator (this process, sending the route's batches): ${results.route.loadGeneratorCpuUsPerEntry} µs CPU per entry`);
    console.log(`load average (1 min) at the end: ${results.loadAverage1m.toFixed(1)} on ${cpus().length} cores`);
    console.log(`PostgreSQL: ${results.postgresBytesPerEntry} bytes per stored entry (table + indexes); ${results.bodyBytesPerEntry} bytes of JSON per shipped entry`);
    console.log(`\nresults: ${writeResults('fleet-ingest', results)}`);
  } finally {
    await controlPlane?.stop();
    await archive.close();
    await pgServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
