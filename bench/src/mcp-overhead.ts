/**
 * What a governed MCP tool call adds (`npm run bench:mcp`), beside what the proxy adds to a chat completion of the
 * same size, in one run.
 *
 * A fast mock MCP server and the mock provider on loopback, each in its own process, and the gateway in another
 * (MCP_UPSTREAMS naming the mock as `bench`, RUNTIME_PAID_POLICIES applied). Each round sends, in a random order:
 * (a) a `tools/call` straight to the mock server, (b) the same call through the gateway's `/v1/mcp/bench` (judged,
 * its result governed, chained in the ledger), (c) the proxy benchmark's chat completion straight to the mock provider
 * and (d) the same through `/v1/proxy/chat/completions`. The tool's arguments are the chat's two texts, and its result
 * text as long as the chat's answer, so both requests and both answers are of one size. Each path's MCP session is
 * opened once, before the rounds. Prints the added latency p50/p90/p99 of (b − a) and (d − c), and the ratio of
 * their p50s (issue 33's target: ≤ 1.2×).
 *
 *   --rounds N   paired rounds (default 3000)     --warmup N   (default 500)
 *   --burst S    seconds of load on each path before the rounds (default 5; 0: none), so every process runs the code
 *                a long-running one runs, as in bench:overhead
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { spawnMockProvider } from './harness/spawn-mock-provider.js';
import { spawnMockMcpServer } from './harness/spawn-mock-mcp-server.js';
import { roundOrder } from './harness/round-order.js';
import { runLoad } from './harness/load.js';
import { spawnGateway } from './harness/spawn-gateway.js';
import { benchTenant } from './harness/bench-tenant.js';
import { summary } from './harness/stats.js';
import { table, fmt } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';
import { SYSTEM, USER, chatBody } from './harness/chat-request.js';

const { values: opt } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3000' },
    warmup: { type: 'string', default: '500' },
    burst: { type: 'string', default: '5' },
  },
});
const ROUNDS = Number(opt.rounds);
const WARMUP = Number(opt.warmup);
const BURST = Number(opt.burst);
const TARGET_RATIO = 1.2;
const PROTOCOL = '2025-06-18';
const SERVER = 'bench';

/** The tool call an agent would make with the chat's prompt as its arguments. */
function toolCallBody(id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'summarise_accounts', arguments: { instructions: SYSTEM, request: USER } } });
}

/** One of the four paths: where it sends, with what, and how its answer is known to be the expected one. */
interface Path {
  name: string;
  pool: Pool;
  origin: string;
  path: string;
  headers: Record<string, string>;
  /** Through the gateway: each call names one of 4096 agents, so the pack's per-agent rate limit (120/min) never trips. */
  gateway: boolean;
  /**
   * Callers taken in turn instead of an agent of 4096: an MCP session answers only to the agent that opened it, so each
   * agent calls in its own session (agent id and session id go together).
   */
  callers?: readonly Readonly<Record<string, string>>[];
  body(): string;
  expected(answer: string): boolean;
  /** Sizes of the last request and answer, bytes. */
  sent: number;
  got: number;
}

let agentSeq = 0;
/** Agents that call the MCP gateway, each in its own session. */
const MCP_AGENTS = 1024;
let rpcSeq = 1;

function path(name: string, url: string, headers: Record<string, string>, gateway: boolean, body: () => string, expected: (answer: string) => boolean): Path {
  const u = new URL(url);
  return { name, pool: new Pool(u.origin, { connections: 4 }), origin: u.origin, path: u.pathname, headers: { 'content-type': 'application/json', ...headers }, gateway, body, expected, sent: 0, got: 0 };
}

/** One call, timed from the request to the answer's last byte; an unexpected answer stops the run. */
async function call(p: Path): Promise<number> {
  const headers = p.callers ? { ...p.headers, ...p.callers[agentSeq++ % p.callers.length] } : p.gateway ? { ...p.headers, 'x-svc-agent-id': `bench-agent-${agentSeq++ & 4095}` } : p.headers;
  const payload = p.body();
  const t0 = performance.now();
  const res = await p.pool.request({ method: 'POST', path: p.path, headers, body: payload });
  const answer = await res.body.text();
  const ms = performance.now() - t0;
  if (res.statusCode !== 200 || !p.expected(answer)) throw new Error(`${p.name}: HTTP ${res.statusCode}: ${answer.slice(0, 300)}`);
  p.sent = Buffer.byteLength(payload);
  p.got = Buffer.byteLength(answer);
  return ms;
}

/** Interleaved rounds: every path once per round, in a fresh random order (round-order.ts says why). */
async function rounds(paths: Path[], n: number): Promise<number[][]> {
  const samples: number[][] = paths.map(() => []);
  for (let i = 0; i < n; i++) {
    const got: number[] = [];
    for (const k of roundOrder(paths.length)) got[k] = await call(paths[k] as Path);
    for (let k = 0; k < paths.length; k++) (samples[k] as number[]).push(got[k] as number);
  }
  return samples;
}

/** Opens an MCP session (initialize, then notifications/initialized) and returns its id. */
async function openSession(url: string, headers: Record<string, string>): Promise<string> {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'aduana-bench', version: '1.0.0' } } }),
  });
  const text = await init.text();
  const session = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !session) throw new Error(`initialize at ${url}: HTTP ${init.status}, session ${session ?? 'none'}: ${text.slice(0, 300)}`);
  const note = await fetch(url, { method: 'POST', headers: { ...base, 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await note.text();
  if (note.status !== 202) throw new Error(`notifications/initialized at ${url}: HTTP ${note.status}`);
  return session;
}

async function main() {
  const mock = await spawnMockProvider();
  const mcp = await spawnMockMcpServer();
  const gw = await spawnGateway({ UPSTREAM_BASE_URL: mock.url, UPSTREAM_API_KEY: 'sk-bench', MCP_UPSTREAMS: JSON.stringify({ [SERVER]: mcp.url }) });
  const results: Record<string, unknown> = { startupMs: gw.startupMs, rounds: ROUNDS, warmup: WARMUP, burstS: BURST };
  const paths: Path[] = [];
  try {
    const admin = await benchTenant(gw);

    const gwMcpUrl = `${gw.url}/v1/mcp/${SERVER}`;
    const pat = { authorization: `Bearer ${admin}` };
    const directSession = await openSession(mcp.url, {});
    // One session per agent (a session answers only to the agent that opened it): 1,024 agents keep each under the
    // pack's per-agent rate limit for the whole run.
    const callers: Record<string, string>[] = [];
    for (let i = 0; i < MCP_AGENTS; i++) {
      const agent = `bench-agent-${i}`;
      callers.push({ 'x-svc-agent-id': agent, 'mcp-session-id': await openSession(gwMcpUrl, { ...pat, 'x-svc-agent-id': agent }) });
    }
    const mcpHeaders = (session: string) => ({ accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL });
    const toolResult = (answer: string) => answer.includes('"isError":false');
    const completion = (answer: string) => answer.includes('"object":"chat.completion"');
    const toolCall = () => toolCallBody(rpcSeq++);
    const chat = () => chatBody(false);
    paths.push(
      path('tools/call direct', mcp.url, mcpHeaders(directSession), false, toolCall, toolResult),
      { ...path('tools/call via gateway', gwMcpUrl, { ...mcpHeaders(callers[0]!['mcp-session-id']!), ...pat }, true, toolCall, toolResult), callers },
      path('chat direct', `${mock.url}/chat/completions`, {}, false, chat, completion),
      path('chat via proxy', `${gw.url}/v1/proxy/chat/completions`, pat, true, chat, completion),
    );

    await rounds(paths, WARMUP);
    // As in bench:overhead: a few hundred sequential calls leave much of each process's per-call code in V8's lower
    // tiers; a sidecar that has served for a while runs it optimised.
    const burst: Record<string, unknown> = {};
    if (BURST > 0) {
      for (const p of paths) {
        const rotate = p.callers ? { rotateHeaderSets: p.callers } : p.gateway ? { rotateHeader: { name: 'x-svc-agent-id', prefix: 'bench-agent-', count: 4096 } } : {};
        const r = await runLoad({ url: `${p.origin}${p.path}`, method: 'POST', headers: p.headers, bodies: [p.body()], connections: 32, durationS: BURST, ...rotate });
        if (r.non2xx > 0 || r.errors > 0) console.warn(`warning: ${p.name}: ${r.non2xx} non-2xx answers and ${r.errors} errors in the burst`);
        burst[p.name] = r;
      }
    }
    results.burst = burst;

    const s = await rounds(paths, ROUNDS);
    const addedOver = (k: number, base: number) => summary((s[k] as number[]).map((v, i) => v - ((s[base] as number[])[i] as number)));
    const mcpAdded = addedOver(1, 0);
    const chatAdded = addedOver(3, 2);
    const direct = { toolsCall: summary(s[0] as number[]), chat: summary(s[2] as number[]) };
    const ratio = mcpAdded.p50 / chatAdded.p50;
    const [toolDirect, , chatDirect] = paths as [Path, Path, Path, Path];
    const sizes = { toolsCall: { request: toolDirect.sent, answer: toolDirect.got }, chat: { request: chatDirect.sent, answer: chatDirect.got } };
    results.sizes = sizes;
    results.direct = direct;
    results.added = { toolsCall: mcpAdded, chat: chatAdded };
    results.ratioP50 = ratio;
    results.targetRatio = TARGET_RATIO;

    console.log(`\nAdded latency, one call at a time (${ROUNDS} interleaved rounds after ${WARMUP} warm-up and ${BURST} s of load per path; paid pack)`);
    console.log(`tools/call: request ${sizes.toolsCall.request} B, answer ${sizes.toolsCall.answer} B, direct p50 ${fmt(direct.toolsCall.p50, 3)} ms; chat completion: request ${sizes.chat.request} B, answer ${sizes.chat.answer} B, direct p50 ${fmt(direct.chat.p50, 3)} ms`);
    const row = (label: string, a: ReturnType<typeof summary>) => [label, fmt(a.p50, 3), fmt(a.p90, 3), fmt(a.p99, 3), fmt(a.iqr, 3), a.n];
    console.log(table(['path', 'added p50 ms', 'p90 ms', 'p99 ms', 'IQR ms', 'rounds'], [row('chat completion, proxy (d − c)', chatAdded), row('tools/call, MCP gateway (b − a)', mcpAdded)]));
    console.log(`tools/call / chat completion, added p50: ${fmt(ratio, 2)}× (target ≤ ${fmt(TARGET_RATIO, 1)}×: ${ratio <= TARGET_RATIO ? 'met' : 'missed'})`);
  } finally {
    for (const p of paths) await p.pool.close();
    await gw.stop();
    mcp.stop();
    mock.stop();
  }
  console.log(`\nresults: ${writeResults('mcp-overhead', results)}`);
}

await main();
