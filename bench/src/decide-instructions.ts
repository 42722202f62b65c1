/**
 * Instructions per decision: `aduana gateway` under valgrind's callgrind, POST /v1/decide with the paid pack applied
 * and rotating agent ids, all threads counted (LMDB's writer, V8's compiler and GC threads). Instruction counts do not
 * move with what else the machine is doing, so two builds compare even on a shared machine, where req/s swings by
 * more than a 5% effect (docs/benchmarks.md, "Reading the instruction counts").
 *
 *   npm run bench:instructions -- [--warmup 6000] [--measured 1000] [--in-flight 8] [--gateway path/to/cli/main.js]
 *   (KEEP=1 keeps callgrind's file and the JIT's symbol map, /tmp/perf-PID.map, for callgrind_annotate)
 *
 * Two counts are printed. The total includes the once-a-second work that decisions cause (flushes, group commits),
 * whose share grows with how long the run takes under valgrind, so it moves with the machine's load. The request
 * path (the HTTP layer's #run, inclusive: body, handler, answer, log line) does not: it is the A/B figure.
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
const NODE_FLAGS = (process.env['BENCH_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);

function cli(args: string[], dataDir: string): string {
  return execFileSync(process.execPath, [CLI, ...args], { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aduana-callgrind-'));
  const dataDir = join(dir, 'data');
  // --perf-basic-prof: V8 writes /tmp/perf-PID.map, which names the JIT's addresses in callgrind's output. It also
  // opens V8's log, kept in the temp dir instead of the working directory.
  const v8Flags = ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(dir, 'v8.log')}`, ...NODE_FLAGS];
  const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`, process.execPath, ...v8Flags, CLI, 'gateway'], {
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
    let gatewayFile = '';
    for (const f of readdirSync(dir).filter((f) => f.startsWith('callgrind.out.'))) {
      const m = /^totals: (\d+)/m.exec(readFileSync(join(dir, f), 'utf8'));
      if (m && Number(m[1]) > total) {
        total = Number(m[1]);
        gatewayFile = join(dir, f);
      }
    }
    const perDecision = total / MEASURED;
    const requestPath = requestPathInstructions(gatewayFile, String(child.pid)) / MEASURED;
    console.log(`${MEASURED} decisions measured: ${(total / 1e6).toFixed(1)} million instructions, ${(perDecision / 1000).toFixed(0)} thousand per decision`);
    console.log(`the request path (#run, inclusive): ${(requestPath / 1000).toFixed(1)} thousand instructions per decision`);
    console.log(`results: ${writeResults('decide-instructions', { gateway: CLI, warmup: WARMUP, measured: MEASURED, inFlight: IN_FLIGHT, instructions: total, perDecision, requestPath })}`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    if (!process.env.KEEP) {
      rmSync(dir, { recursive: true, force: true });
      rmSync(perfMap(String(child.pid)), { force: true });
    }
  }
}

function perfMap(pid: string): string {
  return `/tmp/perf-${pid}.map`;
}

/**
 * The inclusive instructions of the HTTP layer's `#run` in callgrind's file: callgrind lists JIT code by address, and
 * V8's perf map names it. Every compiled version of #run is summed (each call runs in one of them); callgrind's
 * recursion-cycle entries ('2) are left out, since their cost is already inside.
 */
function requestPathInstructions(file: string, pid: string): number {
  const code: { start: number; end: number; name: string }[] = [];
  for (const line of readFileSync(perfMap(pid), 'utf8').split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m) code.push({ start: parseInt(m[1] as string, 16), end: parseInt(m[1] as string, 16) + parseInt(m[2] as string, 16), name: m[3] as string });
  }
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  let sum = 0;
  for (const line of annotated.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+\?\?\?:0x([0-9a-f]+) /.exec(line);
    if (!m) continue;
    const at = parseInt(m[2] as string, 16);
    // The last entry covering the address: V8 reuses code space, and the map is appended to as code is created.
    let name = '';
    for (const c of code) if (c.start <= at && at < c.end) name = c.name;
    if (/#run file:.*\/http\/server\.js:/.test(name)) sum += Number((m[1] as string).replaceAll(',', ''));
  }
  return sum;
}

await main();
