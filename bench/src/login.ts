/**
 * Password login benchmark: `aduana gateway` in its own process, clients in this one, every figure over HTTP.
 *  1. A good password's login latency on an idle service (sequential, one client address).
 *  2. Wrong passwords from many client addresses at once (127.0.1.x, each a closed loop of its own connections) for a
 *     fixed time: answers per second by status (401: a hash ran; 429: refused before any hash ran).
 *  3. Meanwhile, good logins from one more address (127.0.2.1): their latency and how many got a session, which is
 *     what a flood of bad logins does to everyone else's sign-in.
 * The failed-login limits are raised out of the way unless --keep-failure-limits (otherwise every flooding address
 * reaches its 20 failures within a second and the rest of the run measures only 429s); the in-flight caps and the
 * scrypt cost are the service's defaults, or whatever the environment sets (LOGIN_HASHES_IN_FLIGHT_MAX,
 * LOGIN_HASHES_IN_FLIGHT_PER_ADDRESS, PASSWORD_SCRYPT_LOG_N). Linux only: the client addresses are loopback aliases.
 *
 * Flags: --good N (idle good logins, 30), --addresses A (flooding addresses, 32), --connections C (per flooding
 * address, 1), --duration S (flood, 10 s), --keep-failure-limits.
 */
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { fmt, table } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';
import { spawnGateway } from './harness/spawn-gateway.js';
import { summary } from './harness/stats.js';

const { values: flags } = parseArgs({
  options: {
    good: { type: 'string', default: '30' },
    addresses: { type: 'string', default: '32' },
    connections: { type: 'string', default: '1' },
    duration: { type: 'string', default: '10' },
    'keep-failure-limits': { type: 'boolean', default: false },
  },
});
const count = (name: keyof typeof flags, min: number): number => {
  const n = Number(flags[name]);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name}: an integer ≥ ${min}`);
  return n;
};
const GOOD = count('good', 1);
const ADDRESSES = count('addresses', 1);
const CONNECTIONS = count('connections', 1);
const DURATION_S = count('duration', 1);
if (ADDRESSES > 254) throw new Error('--addresses: at most 254 (127.0.1.1 … 127.0.1.254)');

const PASSWORD = 'a long enough bench password';
const USER = 'bench@login.example';

/** One login from the client bound to `dispatcher`: its status, the error message of a refusal, and its time. */
async function login(authUrl: string, dispatcher: Agent, email: string, password: string): Promise<{ status: number; message: string; ms: number }> {
  const t0 = performance.now();
  const res = await request(`${authUrl}/login`, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  const text = await res.body.text();
  const ms = performance.now() - t0;
  let message = '';
  if (res.statusCode !== 200) {
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? '';
    } catch {
      message = text.slice(0, 80);
    }
  }
  return { status: res.statusCode, message, ms };
}

/** 429s split by what refused them: the in-flight caps or the failed-login limits. */
function kind(r: { status: number; message: string }): string {
  if (r.status !== 429) return String(r.status);
  return r.message.includes('in progress') ? '429 in flight' : '429 failed logins';
}

function tally(rs: readonly { status: number; message: string }[]): Record<string, number> {
  const n: Record<string, number> = {};
  for (const r of rs) n[kind(r)] = (n[kind(r)] ?? 0) + 1;
  return n;
}

const limitsOff: Record<string, string> = flags['keep-failure-limits'] ? {} : { LOGIN_FAILURES_PER_ADDRESS: '1000000000', LOGIN_FAILURES_PER_ACCOUNT: '1000000000' };
const gw = await spawnGateway(limitsOff);
const agents: Agent[] = [];
const agentFor = (address: string, connections = 1): Agent => {
  const a = new Agent({ localAddress: address, connections });
  agents.push(a);
  return a;
};
try {
  const created = await request(`${gw.url}/admin/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: USER, name: 'Bench', role: 'viewer', password: PASSWORD }),
  });
  if (created.statusCode !== 201) throw new Error(`creating the user: ${created.statusCode} ${await created.body.text()}`);
  await created.body.dump();

  // 1. Idle: good logins one after another (the first one warms the connection and is not counted).
  const idleAgent = agentFor('127.0.3.1');
  await login(gw.authUrl, idleAgent, USER, PASSWORD);
  const idle: { status: number; message: string; ms: number }[] = [];
  for (let i = 0; i < GOOD; i++) idle.push(await login(gw.authUrl, idleAgent, USER, PASSWORD));

  // 2 and 3. The flood, and a prober's good logins during it.
  const end = performance.now() + DURATION_S * 1000;
  const flood: { status: number; message: string; ms: number }[] = [];
  const loops: Promise<void>[] = [];
  for (let a = 1; a <= ADDRESSES; a++) {
    const agent = agentFor(`127.0.1.${a}`, CONNECTIONS);
    for (let c = 0; c < CONNECTIONS; c++) {
      loops.push(
        (async () => {
          for (let i = 0; performance.now() < end; i++) flood.push(await login(gw.authUrl, agent, `guess-${a}-${c}-${i}@login.example`, 'not the password at all'));
        })(),
      );
    }
  }
  const probeAgent = agentFor('127.0.2.1');
  const probe: { status: number; message: string; ms: number }[] = [];
  while (performance.now() < end) {
    const r = await login(gw.authUrl, probeAgent, USER, PASSWORD);
    probe.push(r);
    // A refused sign-in is tried again shortly, as a person or a client honouring Retry-After would, not in a hot loop.
    if (r.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await Promise.all(loops);

  const idleS = summary(idle.map((r) => r.ms));
  const probeS = summary(probe.filter((r) => r.status === 200).map((r) => r.ms));
  const floodN = tally(flood);
  const probeN = tally(probe);
  console.log(`\nPassword logins over HTTP (scrypt cost from the service's settings; failed-login limits ${flags['keep-failure-limits'] ? 'as configured' : 'raised out of the way'})`);
  console.log(
    table(
      ['run', 'logins', 'answers', 'p50 ms', 'p90 ms', 'p99 ms'],
      [
        ['good password, idle', idle.length, JSON.stringify(tally(idle)), fmt(idleS.p50), fmt(idleS.p90), fmt(idleS.p99)],
        [`good password, during the flood (sessions: ${probeN['200'] ?? 0})`, probe.length, JSON.stringify(probeN), fmt(probeS.p50), fmt(probeS.p90), fmt(probeS.p99)],
      ],
    ),
  );
  console.log(`\nWrong passwords from ${ADDRESSES} addresses × ${CONNECTIONS} connection(s), ${DURATION_S} s`);
  console.log(
    table(
      ['answer', 'count', 'per s'],
      Object.entries(floodN)
        .sort()
        .map(([k, n]) => [k, n, fmt(n / DURATION_S)]),
    ),
  );
  writeResults('login', {
    settings: { good: GOOD, addresses: ADDRESSES, connections: CONNECTIONS, durationS: DURATION_S, keepFailureLimits: flags['keep-failure-limits'] },
    idle: { ...idleS, answers: tally(idle) },
    duringFlood: { ...probeS, answers: probeN },
    flood: { answers: floodN, perSecond: Object.fromEntries(Object.entries(floodN).map(([k, n]) => [k, n / DURATION_S])) },
  });
} finally {
  await Promise.all(agents.map((a) => a.close()));
  await gw.stop();
}
