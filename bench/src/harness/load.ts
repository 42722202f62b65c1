import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Request bodies, used in turn (each connection walks the list). */
  bodies: string[];
  /** A header whose value is made unique per request (e.g. x-svc-agent-id), cycling over `rotateCount` values. */
  rotateHeader?: { name: string; prefix: string; count: number };
  /** Header sets taken in turn, one per request, over `headers` (an MCP agent with its own session: two headers that go together). */
  rotateHeaderSets?: readonly Readonly<Record<string, string>>[];
  connections: number;
  durationS: number;
}

export interface LoadResult {
  tool: 'wrk' | 'autocannon';
  reqPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  non2xx: number;
  errors: number;
}

function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk prints its usage and exits 1 for --version: present.
    return (err as { status?: number }).status === 1;
  }
}

const WRK = hasWrk();

/**
 * A closed-loop load run from a separate process. wrk (C, from Debian's packages) when installed: it costs the
 * 2-core machine far less CPU than a JS client, so the server under test is what is measured. autocannon otherwise.
 */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  return WRK ? runWrk(o) : runAutocannon(o);
}

async function runAutocannon(o: LoadOptions): Promise<LoadResult> {
  let n = 0;
  // autocannon writes content-length into the headers object it is given: copies, so the caller's object (shared with
  // its undici pools in overhead.ts) never carries one body's length into another request.
  const r = await autocannon({
    url: o.url,
    method: o.method,
    connections: o.connections,
    duration: o.durationS,
    headers: { ...o.headers },
    requests: [
      {
        setupRequest: (req) => {
          const i = n++;
          const sets = o.rotateHeaderSets;
          const headers = o.rotateHeader
            ? { ...o.headers, [o.rotateHeader.name]: `${o.rotateHeader.prefix}${i % o.rotateHeader.count}` }
            : sets && sets.length > 0
              ? { ...o.headers, ...sets[i % sets.length] }
              : { ...o.headers };
          return { ...req, headers, body: o.bodies.length ? o.bodies[i % o.bodies.length] : undefined };
        },
      },
    ],
  });
  return { tool: 'autocannon', reqPerSec: r.requests.average, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

function lua(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

async function runWrk(o: LoadOptions): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'aduana-wrk-'));
  try {
    const script = join(dir, 'load.lua');
    const rotate = o.rotateHeader;
    writeFileSync(
      script,
      [
        `wrk.method = "${o.method}"`,
        ...Object.entries(o.headers).map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`),
        `local bodies = {${o.bodies.map(lua).join(',')}}`,
        `local headerSets = {${(o.rotateHeaderSets ?? []).map((set) => `{${Object.entries(set).map(([k, v]) => `[${lua(k)}] = ${lua(v)}`).join(', ')}}`).join(',')}}`,
        'local n = 0',
        'request = function()',
        '  n = n + 1',
        rotate ? `  wrk.headers[${lua(rotate.name)}] = ${lua(rotate.prefix)} .. (n % ${rotate.count})` : '',
        ...(o.rotateHeaderSets && o.rotateHeaderSets.length > 0
          ? [
              `  local set = headerSets[(n % ${o.rotateHeaderSets.length}) + 1]`,
              '  for k, v in pairs(set) do wrk.headers[k] = v end',
            ]
          : []),
        '  local body = nil',
        '  if #bodies > 0 then body = bodies[(n % #bodies) + 1] end',
        '  return wrk.format(nil, nil, nil, body)',
        'end',
      ].join('\n'),
    );
    const { stdout } = await promisify(execFile)('wrk', ['-t1', `-c${o.connections}`, `-d${o.durationS}s`, '--latency', '-s', script, o.url], { maxBuffer: 1 << 20 });
    const ms = (label: string) => {
      const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(stdout);
      if (!m) return NaN;
      const v = Number(m[1]);
      return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
    };
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN);
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
    const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
    const errors = sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
    return { tool: 'wrk', reqPerSec: rps, p50: ms('50'), p90: ms('90'), p99: ms('99'), non2xx, errors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
