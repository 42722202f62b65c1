/**
 * Instructions per decision: `aduana gateway` under valgrind's callgrind, POST /v1/decide with the paid pack applied
 * and rotating agent ids, all threads counted (LMDB's writer, V8's compiler and GC threads). Instruction counts do not
 * move with what else the machine is doing, so two builds compare even on a shared machine, where req/s swings by
 * more than a 5% effect (docs/benchmarks.md, "Reading the instruction counts").
 *
 *   npm run bench:instructions -- [--warmup 6000] [--measured 1000] [--in-flight 8] [--gateway path/to/cli/main.js]
 *   (BENCH_NODE_FLAGS="--perf-basic-prof" names the JIT's code; KEEP=1 keeps callgrind's files for callgrind_annotate)
 *
 * Warm-up runs with instrumentation off (the JIT settles), then `callgrind_control -i on` for the measured decisions
 * and 2.5 s after them, so the once-a-second flushes those decisions cause are counted too.
 */
import { parseArgs } from 'node:util';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { decideBody } from './harness/request-body.js';
import { writeResults } from './harness/results-file.js';

const { values: opt } = parseArgs({
  options: {
    warmup: { type: 'string', default: '6000' },
    measured: { type: 'string', default: '1000' },
    'in-flight': { type: 'string', default: '8' },
    gateway: { type: 'string', default: fileURLToPath(new URL('../../gateway/dist/cli/main.js', import.meta.url)) },
  },
});
const WARMUP = Number(opt.warmup);
const MEASURED = Number(opt.measured);
const IN_FLIGHT = Number(opt['in-flight']);
const CLI = resolve(opt.gateway);
// E.g. --perf-basic-prof, so that the JIT's addresses in callgrind's output can be named from /tmp/perf-PID.map.
const NODE_FLAGS = (process.env['BENCH_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);

function cli(args: string[], dataDir: string): string {
  return execFileSync(process.execPath, [CLI, ...args], { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aduana-callgrind-'));
  const dataDir = join(dir, 'data');
  const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`, process.execPath, ...NODE_FLAGS, CLI, 'gateway'], {
    env: { ...process.env, DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'info', ADUANA_QUIET_BOOTSTRAP: 'true' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const url = await new Promise<string>((ok, fail) => {
      let out = '';
      child.stderr.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /API and proxy on (http:\/\/[\d.:]+)/.exec(out);
        if (m) ok(m[1] as string);
      });
      child.on('exit', (code) => fail(new Error(`gateway exited (${code}): ${out.slice(-2000)}`)));
    });
    cli(['tenant', 'create', 'bench', '--plan', 'enterprise'], dataDir);
    const token = cli(['token', 'create', '--tenant', 'bench', '--role', 'admin'], dataDir).trim();
    const pool = new Pool(url, { connections: IN_FLIGHT });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const pack = await pool.request({ method: 'POST', path: '/v1/policies/apply-pack', headers, body: JSON.stringify({ pack: 'RUNTIME_PAID_POLICIES' }) });
    await pack.body.text();
    if (pack.statusCode !== 200) throw new Error(`apply-pack: ${pack.statusCode}`);
    // 1,024 agents, as bench:decide: the pack's per-agent rate limit would otherwise turn the run into DENYs.
    const bodies = Array.from({ length: 1024 }, (_, i) => JSON.stringify(decideBody(`agent-${i}`)));
    let sent = 0;
    const run = async (n: number): Promise<void> => {
      const end = sent + n;
      const worker = async () => {
        while (sent < end) {
          const body = bodies[sent++ % bodies.length] as string;
          const r = await pool.request({ method: 'POST', path: '/v1/decide', headers, body });
          await r.body.text();
          if (r.statusCode !== 200) throw new Error(`decide: ${r.statusCode}`);
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    };
    const t0 = Date.now();
    await run(WARMUP);
    console.log(`warm-up: ${WARMUP} decisions in ${((Date.now() - t0) / 1000).toFixed(0)} s under valgrind`);
    execFileSync('callgrind_control', ['-i', 'on', String(child.pid)], { stdio: 'ignore' });
    await run(MEASURED);
    await sleep(2500);
    execFileSync('callgrind_control', ['-i', 'off', String(child.pid)], { stdio: 'ignore' });
    await pool.close();
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    // One file per process (and callgrind's own dumps, if any): the gateway's is the largest.
    let total = 0;
    for (const f of readdirSync(dir).filter((f) => f.startsWith('callgrind.out.'))) {
      const m = /^totals: (\d+)/m.exec(readFileSync(join(dir, f), 'utf8'));
      if (m) total = Math.max(total, Number(m[1]));
    }
    const perDecision = total / MEASURED;
    console.log(`${MEASURED} decisions measured: ${(total / 1e6).toFixed(1)} million instructions, ${(perDecision / 1000).toFixed(0)} thousand per decision`);
    console.log(`results: ${writeResults('decide-instructions', { gateway: CLI, warmup: WARMUP, measured: MEASURED, inFlight: IN_FLIGHT, instructions: total, perDecision })}`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
