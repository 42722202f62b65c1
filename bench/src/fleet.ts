/**
 * Fleet mode's figures (docs/fleet.md, "Sizing"; docs/benchmarks.md): every part real and in its own process, as in
 * production: PostgreSQL and Redis from the machine's packages, `aduana control`, sidecars, an embedded gateway and
 * the mock provider.
 *
 * 1. Bundle propagation: a policy created at the control plane, timed until each sidecar enforces it (the sidecar is
 *    asked with /v1/decide every millisecond or so). p50 / p99 over --changes changes.
 * 2. The sidecar's proxy overhead against the embedded default: paired rounds through the mock provider directly,
 *    the embedded gateway, a sidecar without Redis and a sidecar with Redis; added latency and gateway CPU per call.
 *
 *   npm run bench:fleet -- [--changes N] [--sidecars N] [--rounds N] [--warmup N] [--twin]
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { startLocalPostgres, startLocalRedis } from '@aduana/shared/local-servers';
import { spawnMockProvider } from './harness/spawn-mock-provider.js';
import { gatewayNodeFlags, spawnGateway, type SpawnedGateway } from './harness/spawn-gateway.js';
import { aduana } from './harness/cli.js';
import { summary, processCpuMs } from './harness/stats.js';
import { table, fmt } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';
import { roundOrder } from './harness/round-order.js';

const { values: opt } = parseArgs({
  options: {
    changes: { type: 'string', default: '100' },
    sidecars: { type: 'string', default: '2' },
    // A second embedded gateway, started after the propagation run: two identical gateways should measure alike.
    twin: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '300' },
  },
});
const CHANGES = Number(opt.changes);
const SIDECARS = Number(opt.sidecars);
const ROUNDS = Number(opt.rounds);
const WARMUP = Number(opt.warmup);
const CLI = fileURLToPath(new URL('../../gateway/dist/cli/main.js', import.meta.url));

const CHAT = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are a careful assistant for an account team. Answer briefly.' },
    { role: 'user', content: 'Summarise the renewal risk of Northwind Traders (renews in 40 days, 3 open tickets, usage down 12 percent) in two sentences.' },
  ],
});

async function spawnControl(env: Record<string, string>): Promise<{ url: string; authUrl: string; dataDir: string; adminToken: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aduana-bench-control-'));
  const child: ChildProcess = spawn(process.execPath, [CLI, 'control'], {
    env: { ...process.env, DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'warn', ADUANA_QUIET_BOOTSTRAP: 'true', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const m = await new Promise<RegExpMatchArray>((resolve, reject) => {
    let out = '';
    child.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
      const found = out.match(/API on (http:\/\/[\d.:]+), auth service on (http:\/\/[\d.:]+)/);
      if (found) resolve(found);
    });
    child.on('exit', (code) => reject(new Error(`control plane exited (${code}): ${out}`)));
  });
  return {
    url: m[1]!,
    authUrl: m[2]!,
    dataDir,
    adminToken: readFileSync(join(dataDir, 'bootstrap-admin.token'), 'utf8').trim(),
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function json(url: string, method: string, token: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function enforces(url: string, token: string, word: string): Promise<boolean> {
  const r = await json(`${url}/v1/decide`, 'POST', token, { agent_id: 'probe', action: { type: 'http', target: 'https://example.com', method: 'POST', payload: { text: `say ${word}` } } });
  return (r.body['envelope'] as { execution_status?: string } | undefined)?.execution_status === 'DENY';
}

interface Target {
  name: string;
  pool: Pool;
  path: string;
  headers: Record<string, string>;
  pid: number;
}

let agentSeq = 0;

/** One call: its round trip (ms) and, through a gateway, the governance time it reports (x-svc-latency-us). */
async function once(t: Target): Promise<{ ms: number; governanceUs: number }> {
  // Agent ids rotate, as in bench:overhead: the paid pack's per-agent rate limit (120 a minute) never trips.
  const headers = t.pid ? { ...t.headers, 'x-svc-agent-id': `bench-agent-${agentSeq++ & 4095}` } : t.headers;
  const t0 = performance.now();
  const res = await t.pool.request({ method: 'POST', path: t.path, headers, body: CHAT });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`${t.name}: HTTP ${res.statusCode}`);
  return { ms: performance.now() - t0, governanceUs: Number(res.headers['x-svc-latency-us'] ?? Number.NaN) };
}

async function main(): Promise<void> {
  const [pg, redis] = await Promise.all([startLocalPostgres(), startLocalRedis()]);
  const mock = await spawnMockProvider();
  const stops: (() => Promise<void> | void)[] = [() => pg.stop(), () => redis.stop(), () => mock.stop()];
  const results: Record<string, unknown> = { changes: CHANGES, sidecars: SIDECARS, rounds: ROUNDS };
  try {
    const databaseUrl = await pg.createDatabase('bench_fleet');
    const control = await spawnControl({ DATABASE_URL: databaseUrl });
    stops.unshift(() => control.stop());
    const dbEnv = { DATABASE_URL: databaseUrl, DATA_DIR: control.dataDir };
    const sidecarToken = aduana(['sidecar-token', 'create', '--name', 'bench'], dbEnv).match(/adu_sct_\w+/)![0];
    aduana(['tenant', 'create', 'bench', '--plan', 'enterprise'], dbEnv);
    const admin = aduana(['token', 'create', '--tenant', 'bench', '--role', 'admin'], dbEnv).match(/adu_pat_\w+/)![0];
    const pack = await json(`${control.url}/v1/policies/apply-pack`, 'POST', admin, { pack: 'RUNTIME_PAID_POLICIES' });
    if (pack.status !== 200) throw new Error(`apply-pack at the control plane: HTTP ${pack.status}`);

    const fleetEnv = (withRedis: boolean): Record<string, string> => ({
      UPSTREAM_BASE_URL: mock.url,
      UPSTREAM_API_KEY: 'sk-bench',
      CONTROL_PLANE_URL: control.url,
      SIDECAR_TOKEN: sidecarToken,
      ...(withRedis ? { REDIS_URL: redis.url } : {}),
    });
    const embeddedGateway = async (): Promise<{ gw: SpawnedGateway; admin: string }> => {
      const gw = await spawnGateway({ UPSTREAM_BASE_URL: mock.url, UPSTREAM_API_KEY: 'sk-bench' });
      stops.unshift(() => gw.stop());
      const env = { DATA_DIR: gw.dataDir };
      aduana(['tenant', 'create', 'bench', '--plan', 'enterprise'], env);
      const token = aduana(['token', 'create', '--tenant', 'bench', '--role', 'admin'], env).trim();
      if ((await json(`${gw.url}/v1/policies/apply-pack`, 'POST', token, { pack: 'RUNTIME_PAID_POLICIES' })).status !== 200) throw new Error('apply-pack (embedded)');
      return { gw, admin: token };
    };
    // The reference starts beside the sidecars and lives through the same run.
    const { gw: embedded, admin: eAdmin } = await embeddedGateway();
    const sidecars: SpawnedGateway[] = [];
    for (let i = 0; i < SIDECARS; i++) sidecars.push(await spawnGateway(fleetEnv(i === 0)));
    stops.unshift(...sidecars.map((s) => () => s.stop()));
    // Ready once the bundle made the admin token known.
    for (const s of sidecars) {
      for (let tries = 0; (await json(`${s.url}/v1/policies`, 'GET', admin)).status !== 200; tries++) {
        if (tries > 2000) throw new Error('a sidecar never received its bundle');
        await new Promise((r) => setTimeout(r, 5));
      }
    }

    // 1. Propagation.
    const perSidecar: number[] = [];
    const slowest: number[] = [];
    for (let c = 0; c < CHANGES; c++) {
      const word = `forbidden${c}x`;
      const created = await json(`${control.url}/v1/policies`, 'POST', admin, { name: `p${c}`, type: 'content_filter', risk: 50, rules: { patterns: [word], action: 'DENY' } });
      if (created.status !== 200) throw new Error(`policy create: HTTP ${created.status}`);
      const t0 = performance.now();
      const times = await Promise.all(
        sidecars.map(async (s) => {
          while (!(await enforces(s.url, admin, word))) {
            if (performance.now() - t0 > 30_000) throw new Error('a change did not reach a sidecar within 30 s');
          }
          return performance.now() - t0;
        }),
      );
      perSidecar.push(...times);
      slowest.push(Math.max(...times));
    }
    const each = summary(perSidecar);
    const all = summary(slowest);
    results['propagationMs'] = { perSidecar: each, allSidecars: all };
    console.log(`\nBundle propagation: policy created at the control plane -> enforced (${CHANGES} changes, ${SIDECARS} sidecars; includes the probing decide's own round trip)`);
    console.log(table(['', 'p50 ms', 'p90 ms', 'p99 ms', 'n'], [
      ['each sidecar', fmt(each.p50, 1), fmt(each.p90, 1), fmt(each.p99, 1), each.n],
      ['every sidecar', fmt(all.p50, 1), fmt(all.p90, 1), fmt(all.p99, 1), all.n],
    ]));

    // 2. Proxy overhead: embedded against sidecars (the policies of the propagation run are removed first).
    const twin = opt.twin ? await embeddedGateway() : null;
    const list = await json(`${control.url}/v1/policies?enabled=all&limit=500`, 'GET', admin);
    for (const p of list.body['data'] as { id: string; name: string }[]) if (/^p\d+$/.test(p.name)) await json(`${control.url}/v1/policies/${p.id}`, 'DELETE', admin);
    await new Promise((r) => setTimeout(r, 1000));

    const mk = (name: string, base: string, token: string, pid: number): Target => ({
      name,
      pool: new Pool(new URL(base).origin, { connections: 4 }),
      path: base === mock.url ? new URL(`${mock.url}/chat/completions`).pathname : '/v1/proxy/chat/completions',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-svc-agent-id': 'bench-agent' },
      pid,
    });
    const targets = [
      mk('direct', mock.url, 'sk-bench', 0),
      mk('embedded', embedded.url, eAdmin, embedded.pid),
      mk('sidecar + Redis', sidecars[0]!.url, admin, sidecars[0]!.pid),
      ...(sidecars[1] ? [mk('sidecar', sidecars[1].url, admin, sidecars[1].pid)] : []),
      ...(twin ? [mk('embedded, started last', twin.gw.url, twin.admin, twin.gw.pid)] : []),
    ];
    const samples: number[][] = targets.map(() => []);
    const governance: number[][] = targets.map(() => []);
    const cpu0 = await Promise.all(targets.map((t) => (t.pid ? processCpuMs(t.pid) : 0)));
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      for (const k of roundOrder(targets.length)) {
        const r = await once(targets[k]!);
        if (i >= WARMUP) {
          samples[k]!.push(r.ms);
          governance[k]!.push(r.governanceUs);
        }
      }
    }
    const cpu1 = await Promise.all(targets.map((t) => (t.pid ? processCpuMs(t.pid) : 0)));
    const direct = samples[0]!;
    const rows: (string | number)[][] = [];
    const added: Record<string, unknown> = {};
    const embeddedP50 = summary(samples[1]!.map((v, i) => v - direct[i]!)).p50;
    for (let k = 1; k < targets.length; k++) {
      const s = summary(samples[k]!.map((v, i) => v - direct[i]!));
      const cpuUs = ((cpu1[k]! - cpu0[k]!) * 1000) / (WARMUP + ROUNDS);
      const gov = summary(governance[k]!);
      added[targets[k]!.name] = { ...s, cpuUsPerCall: cpuUs, governanceUs: gov };
      rows.push([targets[k]!.name, fmt(s.p50, 3), fmt(s.p99, 3), fmt(gov.p50, 0), fmt(cpuUs, 0), `${fmt((s.p50 / embeddedP50 - 1) * 100, 1)} %`]);
    }
    results['proxyAddedMs'] = added;
    console.log(`\nProxy overhead, fleet against embedded (${ROUNDS} interleaved rounds after ${WARMUP}; paid pack; target: within 5 %)`);
    console.log(table(['path', 'added p50 ms', 'added p99 ms', 'governance p50 µs', 'gateway CPU µs/call', 'p50 vs embedded'], rows));
    console.log(`gateway V8 flags: ${gatewayNodeFlags().join(' ') || '(none)'}`);
    writeResults('fleet', results);
  } finally {
    for (const stop of stops) await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
