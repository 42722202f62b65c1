/**
 * Governance overhead of the proxy (`npm run bench:overhead`).
 *
 * A fast mock provider on loopback; the same ~1 KB chat request sent direct, through the floor (a plain relay of the
 * same parts, uWebSockets.js in and undici out, no governance; its own process) and through the gateway (its own
 * process, RUNTIME_PAID_POLICIES applied) in interleaved rounds after a warm-up. Prints the added latency p50/p90/p99
 * with its spread (IQR) for each and its ratio to the floor's, time-to-first-byte overhead for streams (floor and
 * aduana), the gateway's own governance time (`x-svc-latency-us`), throughput at a fixed concurrency, start-up time and
 * resident memory (with the paid pack compiled: just after the warm-up, idle once V8's memory reducer has run, and
 * under 100 concurrent streams).
 *
 *   --rounds N          paired rounds (default 3000)          --warmup N         (default 500)
 *   --burst S           seconds of load at --concurrency on each path before the rounds (default 5; 0: none), so
 *                       that every process runs the code a long-running one runs (optimised by V8's top tier)
 *   --concurrency N     for the throughput runs (default 32)  --duration S       per throughput run (default 8)
 *   --peer URL          another gateway's chat-completions URL, run side by side (repeatable)
 *   --peer-header k:v   header for the peers; {MOCK} is replaced by the mock's base URL (repeatable)
 *   --mock-port N       fixed port for the mock (for peers configured ahead of time)
 *   --gateway-flags S   V8 flags for the gateway, space-separated ('' for none; default: gateway/package.json's)
 *   --quiet S           seconds without traffic before the idle reading (default 40; 0: skip it). V8 shrinks its
 *                       young generation and compacts once allocation has stopped for a while (its memory reducer,
 *                       some 10-30 s after the last request), which is the state of a sidecar whose agent is idle
 *   --route R           adds the path aduana-routed: a second tenant like the bench tenant whose chat model is routed
 *                       (docs/routing.md), 'one' (one target, the mock) or 'fallback' (a first target that refuses
 *                       connections, then the mock), in the same rounds as the unrouted one, so the two are compared
 *                       on one process under the same noise (with --steps, the step means cover both paths)
 *   --translate         adds the path aduana-translated: a third tenant whose chat model is routed to an Anthropic
 *                       target (the mock's Messages API), so the same OpenAI chat call is translated both ways
 *                       (docs/translation.md); compared with aduana-routed (give --route one too) or aduana
 *   --format F          also measure wire format F (responses, anthropic, gemini; repeatable) with the same processes after chat
 *                       completions: its added latency beside the floor's, and its ratio to chat completions' here
 *   --steps             run the gateway with PROXY_STEP_TIMINGS and print each step's mean time, one call at a time
 *                       (the paired rounds) and under the throughput run (the timing itself adds a little to each)
 *
 * Example peer (Portkey's OSS gateway, `npx @portkey-ai/gateway`, port 8787):
 *   --peer http://127.0.0.1:8787/v1/chat/completions --peer-header x-portkey-provider:openai \
 *   --peer-header 'x-portkey-custom-host:{MOCK}'
 */
import { parseArgs } from 'node:util';
import { freeLoopbackPort } from '@aduana/shared/local-servers';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { spawnMockProvider } from './harness/spawn-mock-provider.js';
import { roundOrder } from './harness/round-order.js';
import { runLoad } from './harness/load.js';
import { gatewayNodeFlags, spawnGateway } from './harness/spawn-gateway.js';
import { spawnRelay } from './harness/spawn-relay.js';
import { benchTenant } from './harness/bench-tenant.js';
import { summary, memoryMiB, cpuPerCallUs, threadCpuMs } from './harness/stats.js';
import { table, fmt } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';
import { SYSTEM, USER, chatBody as body } from './harness/chat-request.js';

const { values: opt } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3000' },
    warmup: { type: 'string', default: '500' },
    burst: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
    duration: { type: 'string', default: '8' },
    peer: { type: 'string', multiple: true, default: [] },
    'peer-header': { type: 'string', multiple: true, default: [] },
    'mock-port': { type: 'string', default: '0' },
    'gateway-flags': { type: 'string' },
    quiet: { type: 'string', default: '40' },
    steps: { type: 'boolean', default: false },
    format: { type: 'string', multiple: true, default: [] },
    route: { type: 'string' },
    translate: { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(opt.rounds);
const WARMUP = Number(opt.warmup);
const BURST = Number(opt.burst);
const CONCURRENCY = Number(opt.concurrency);
const DURATION = Number(opt.duration);
const QUIET = Number(opt.quiet);

/** The same request in Anthropic's Messages format. */
function anthropicBody(stream: boolean): string {
  return JSON.stringify({ model: 'claude-sonnet-4', max_tokens: 256, system: SYSTEM, messages: [{ role: 'user', content: USER }], stream });
}

/** The same request in OpenAI's Responses format. */
function responsesBody(stream: boolean): string {
  return JSON.stringify({ model: 'gpt-4o-mini', instructions: SYSTEM, input: [{ role: 'user', content: USER }], stream });
}

/** The same request in Gemini's generateContent format (the model is in the path). */
function geminiBody(): string {
  return JSON.stringify({ systemInstruction: { parts: [{ text: SYSTEM }] }, contents: [{ role: 'user', parts: [{ text: USER }] }] });
}

/** What another wire format is measured with: its paths on the mock, the floor and the gateway, a body, headers. */
interface WireFormat {
  label: string;
  mockPath: string;
  gatewayPath: string;
  headers: Record<string, string>;
  body(stream: boolean): string;
  /** A stream is asked for in the body (Anthropic); Gemini's is another path, not measured here. */
  streamsInBody: boolean;
}

const FORMATS: Readonly<Record<string, WireFormat>> = {
  responses: { label: 'OpenAI Responses', mockPath: '/responses', gatewayPath: '/v1/proxy/responses', headers: {}, body: responsesBody, streamsInBody: true },
  anthropic: { label: 'Anthropic Messages', mockPath: '/messages', gatewayPath: '/v1/proxy/anthropic/v1/messages', headers: { 'anthropic-version': '2023-06-01' }, body: anthropicBody, streamsInBody: true },
  gemini: { label: 'Gemini generateContent', mockPath: '/models/gemini-2.0-flash:generateContent', gatewayPath: '/v1/proxy/gemini/v1/models/gemini-2.0-flash:generateContent', headers: {}, body: geminiBody, streamsInBody: false },
};

interface Target {
  name: string;
  pool: Pool;
  path: string;
  headers: Record<string, string>;
}

function target(name: string, url: string, headers: Record<string, string>): Target {
  const u = new URL(url);
  return { name, pool: new Pool(u.origin, { connections: CONCURRENCY + 8 }), path: u.pathname, headers: { 'content-type': 'application/json', ...headers } };
}

let agentSeq = 0;
/**
 * Per-request headers: gateway calls rotate agent ids so the pack's per-agent rate limit (120/min) never trips; peers'
 * too, since a peer may be another build of aduana with the same pack (a gateway that ignores the header is unaffected).
 */
function headersFor(t: Target): Record<string, string> {
  if (!t.name.startsWith('aduana') && !t.name.startsWith('peer')) return t.headers;
  return { ...t.headers, 'x-svc-agent-id': `bench-agent-${agentSeq++ & 4095}` };
}

/** Governance time the gateway reports on each answer (`x-svc-latency-us`), collected during the paired rounds. */
const governanceUs: number[] = [];

async function once(t: Target, payload: string): Promise<{ total: number; ttfb: number; firstContent: number; status: number }> {
  const t0 = performance.now();
  const res = await t.pool.request({ method: 'POST', path: t.path, headers: headersFor(t), body: payload });
  if (t.name === 'aduana') {
    const g = Number(res.headers['x-svc-latency-us']);
    if (Number.isFinite(g)) governanceUs.push(g);
  }
  let ttfb = -1;
  let firstContent = -1;
  for await (const chunk of res.body) {
    const now = performance.now() - t0;
    if (ttfb < 0) ttfb = now;
    if (firstContent < 0 && ((chunk as Buffer).includes('"content":"word') || (chunk as Buffer).includes('"text":"word'))) firstContent = now;
  }
  return { total: performance.now() - t0, ttfb, firstContent, status: res.statusCode };
}

async function paired(targets: Target[], payload: string, rounds: number, pick: (r: Awaited<ReturnType<typeof once>>) => number) {
  const samples: number[][] = targets.map(() => []);
  for (let i = 0; i < rounds; i++) {
    const got: number[] = [];
    for (const k of roundOrder(targets.length)) {
      const r = await once(targets[k] as Target, payload);
      if (r.status !== 200) throw new Error(`${(targets[k] as Target).name}: HTTP ${r.status}`);
      got[k] = pick(r);
    }
    for (let k = 0; k < targets.length; k++) (samples[k] as number[]).push(got[k] as number);
  }
  return samples;
}

async function throughput(t: Target, payload: string, durationS = DURATION) {
  const rotate = t.name.startsWith('aduana') || t.name.startsWith('peer') ? { name: 'x-svc-agent-id', prefix: 'bench-agent-', count: 4096 } : undefined;
  return runLoad({ url: `${originOf(t)}${t.path}`, method: 'POST', headers: t.headers, bodies: [payload], connections: CONCURRENCY, durationS, ...(rotate ? { rotateHeader: rotate } : {}) });
}

/** A difference in ms with its sign, e.g. +0.412 or -0.120. */
function signed(ms: number): string {
  return `${ms < 0 ? '-' : '+'}${fmt(Math.abs(ms), 3)}`;
}

const origins = new Map<Target, string>();
function originOf(t: Target): string {
  return origins.get(t) as string;
}

/**
 * Another wire format through the same mock, floor and gateway, after chat completions: non-streamed added latency
 * (interleaved rounds, as for chat) and, where the body asks for a stream, the streamed first byte, with the ratio of
 * aduana's added p50 to chat completions' in this run (issue target: within 10 %).
 */
async function compareFormat(f: WireFormat, mockUrl: string, relayUrl: string, gwUrl: string, admin: string, chatAdded: number, chatFloor: number) {
  const ts: Target[] = [
    target('direct', `${mockUrl}${f.mockPath}`, f.headers),
    target('floor', `${relayUrl}${f.mockPath}`, f.headers),
    target('aduana-format', `${gwUrl}${f.gatewayPath}`, { ...f.headers, authorization: `Bearer ${admin}`, 'x-svc-agent-id': 'bench-agent' }),
  ];
  const bases = [mockUrl, relayUrl, gwUrl];
  ts.forEach((t, i) => origins.set(t, new URL(bases[i] as string).origin));
  await paired(ts, f.body(false), WARMUP, (r) => r.total);
  if (BURST > 0) for (const t of ts) await throughput(t, f.body(false), BURST);
  const plain = await paired(ts, f.body(false), ROUNDS, (r) => r.total);
  const addedOf = (xs: number[][], k: number) => summary((xs[k] as number[]).map((v, i) => v - ((xs[0] as number[])[i] as number)));
  const floor = addedOf(plain, 1);
  const ours = addedOf(plain, 2);
  const ttfb = f.streamsInBody ? await paired(ts, f.body(true), Math.max(200, Math.floor(ROUNDS / 3)), (r) => r.ttfb) : null;
  const firstByte = (k: number) => (ttfb ? fmt(addedOf(ttfb, k).p50, 3) : '–');
  console.log(`\n${f.label} (~${f.body(false).length} B request; ${ROUNDS} interleaved rounds): added latency`);
  console.log(table(['path', 'added p50 ms', 'p90 ms', 'p99 ms', 'vs floor: p50 ratio', 'stream first byte p50 ms'], [
    ['floor', fmt(floor.p50, 3), fmt(floor.p90, 3), fmt(floor.p99, 3), '1.00×', firstByte(1)],
    ['aduana', fmt(ours.p50, 3), fmt(ours.p90, 3), fmt(ours.p99, 3), `${fmt(ours.p50 / floor.p50, 2)}×`, firstByte(2)],
  ]));
  console.log(`aduana's added p50, ${f.label} / chat completions in this run: ${fmt(ours.p50 / chatAdded, 2)}× (target ≤ 1.10×); the floor's: ${fmt(floor.p50 / chatFloor, 2)}×`);
  for (const t of ts) await t.pool.close();
  return { floor, aduana: ours, ratioToChat: ours.p50 / chatAdded };
}

/** Routes a tenant's chat model to an Anthropic target, the mock's Messages API: the OpenAI call is translated. */
async function translateBench(url: string, admin: string, origin: string): Promise<void> {
  const put = async (path: string, body: unknown) => {
    const r = await fetch(`${url}${path}`, { method: 'PUT', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`PUT ${path}: HTTP ${r.status} ${await r.text()}`);
  };
  await put('/v1/credentials/bench-key', { secret: 'sk-bench' });
  await put('/v1/routes', { targets: { claude: { provider: 'anthropic', base_url: origin, credential: 'bench-key' } }, models: { 'gpt-4o-mini': { strategy: 'fallback', targets: [{ target: 'claude', model: 'claude-sonnet-4-5' }] } } });
  console.log('translate: gpt-4o-mini -> claude (anthropic, translated)');
}

/** Routes a tenant's chat model: one target (the mock), or a target that refuses connections, then the mock. */
async function routeBench(url: string, admin: string, mockUrl: string, kind: string): Promise<void> {
  if (kind !== 'one' && kind !== 'fallback') throw new Error("--route: 'one' or 'fallback'");
  const put = async (path: string, body: unknown) => {
    const r = await fetch(`${url}${path}`, { method: 'PUT', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`PUT ${path}: HTTP ${r.status} ${await r.text()}`);
  };
  await put('/v1/credentials/bench-key', { secret: 'sk-bench' });
  const mockTarget = { provider: 'openai', base_url: mockUrl, credential: 'bench-key' };
  const targets = kind === 'one' ? { mock: mockTarget } : { down: { provider: 'openai', base_url: `http://127.0.0.1:${await freeLoopbackPort()}/v1`, credential: 'bench-key' }, mock: mockTarget };
  await put('/v1/routes', { targets, models: { 'gpt-4o-mini': { strategy: 'fallback', targets: Object.keys(targets) } } });
  console.log(`route: ${kind} (${Object.keys(targets).join(' -> ')})`);
}

async function main() {
  // The provider runs in its own process, as a real one would: `direct` pays one cross-process round trip, the gateway path two.
  const mock = await spawnMockProvider(Number(opt['mock-port']));
  const relay = await spawnRelay(mock.url);
  const flags = opt['gateway-flags'] === undefined ? gatewayNodeFlags() : opt['gateway-flags'].split(' ').filter(Boolean);
  const origin = new URL(mock.url).origin;
  const gw = await spawnGateway({ UPSTREAM_BASE_URL: mock.url, UPSTREAM_API_KEY: 'sk-bench', UPSTREAM_ANTHROPIC_BASE_URL: origin, UPSTREAM_ANTHROPIC_API_KEY: 'sk-bench', UPSTREAM_GEMINI_BASE_URL: origin, UPSTREAM_GEMINI_API_KEY: 'sk-bench', ...(opt.steps ? { PROXY_STEP_TIMINGS: 'true' } : {}), ...(opt.route || opt.translate ? { CREDENTIALS_KEY: 'be'.repeat(32) } : {}) }, flags);
  console.log(`gateway V8 flags: ${flags.join(' ') || '(none)'}`);
  const results: Record<string, unknown> = { startupMs: gw.startupMs, gatewayNodeFlags: flags };
  try {
    const admin = await benchTenant(gw);
    const routedAdmin = opt.route ? await benchTenant(gw, 'bench-routed') : null;
    if (opt.route && routedAdmin) await routeBench(gw.url, routedAdmin, mock.url, opt.route);
    const translatedAdmin = opt.translate ? await benchTenant(gw, 'bench-translated') : null;
    if (translatedAdmin) await translateBench(gw.url, translatedAdmin, origin);

    const peerHeaders: Record<string, string> = {};
    for (const h of opt['peer-header'] as string[]) {
      const i = h.indexOf(':');
      peerHeaders[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim().replace('{MOCK}', mock.url);
    }
    const targets: Target[] = [
      target('direct', `${mock.url}/chat/completions`, {}),
      target('floor', `${relay.url}/chat/completions`, {}),
      target('aduana', `${gw.agentsUrl}/v1/proxy/chat/completions`, { authorization: `Bearer ${admin}`, 'x-svc-agent-id': 'bench-agent' }),
      ...(routedAdmin ? [target('aduana-routed', `${gw.agentsUrl}/v1/proxy/chat/completions`, { authorization: `Bearer ${routedAdmin}`, 'x-svc-agent-id': 'bench-agent' })] : []),
      ...(translatedAdmin ? [target('aduana-translated', `${gw.agentsUrl}/v1/proxy/chat/completions`, { authorization: `Bearer ${translatedAdmin}`, 'x-svc-agent-id': 'bench-agent' })] : []),
      ...(opt.peer as string[]).map((url, i) => target(`peer${i + 1}`, url, { authorization: 'Bearer sk-bench', ...peerHeaders })),
    ];
    const bases: Record<string, string> = { direct: mock.url, floor: relay.url, aduana: gw.agentsUrl, 'aduana-routed': gw.agentsUrl, 'aduana-translated': gw.agentsUrl };
    for (const t of targets) origins.set(t, new URL(bases[t.name] ?? ((opt.peer as string[])[Number(t.name.slice(4)) - 1] as string)).origin);

    // Warm-up, then the gateway's footprint with the paid pack compiled: just after the warm-up, idle after --quiet
    // seconds without traffic, and under 100 concurrent (held-open) streams. Measured before the throughput runs,
    // whose ledger writes grow LMDB's mapped file (page cache, in RSS).
    await paired(targets, body(false), WARMUP, (r) => r.total);
    await new Promise((r) => setTimeout(r, 500));
    const afterWarmup = await memoryMiB(gw.pid);
    await new Promise((r) => setTimeout(r, Math.max(0, QUIET * 1000 - 500)));
    const idle = QUIET > 0 ? await memoryMiB(gw.pid) : null;
    let peak = await memoryMiB(gw.pid);
    const sampler = setInterval(() => void memoryMiB(gw.pid).then((m) => (peak = m.rss > peak.rss ? m : peak)), 50);
    await Promise.all(Array.from({ length: 100 }, () => once(targets[2] as Target, body(true, ' slow-stream'))));
    clearInterval(sampler);
    results.memory = { afterWarmup, idle, quietS: QUIET, streams100: peak };

    // A few hundred sequential calls leave much of each process's per-call code in V8's lower tiers; a sidecar that
    // has served for a while runs it optimised. Measured with --burst 0 against 5 s: docs/benchmarks-history.md, "Why
    // one call at a time costs three times what a busy gateway spends".
    if (BURST > 0) for (const t of targets) await throughput(t, body(false), BURST);
    results.burstS = BURST;

    governanceUs.length = 0;
    const stepsBefore = opt.steps ? await stepTotals(gw.url, admin) : null;
    const plain = await paired(targets, body(false), ROUNDS, (r) => r.total);
    const stepsSequential = stepsBefore ? stepMeans(stepsBefore, await stepTotals(gw.url, admin)) : null;
    const direct = plain[0] as number[];
    const added: Record<string, ReturnType<typeof summary>> = {};
    for (let k = 1; k < targets.length; k++) {
      added[(targets[k] as Target).name] = summary((plain[k] as number[]).map((v, i) => v - (direct[i] as number)));
    }
    const floor = added['floor'] as ReturnType<typeof summary>;
    const rows = targets.slice(1).map((t) => {
      const s = added[t.name] as ReturnType<typeof summary>;
      const vsFloor = t.name === 'floor' ? '1.00× / +0.000' : `${fmt(s.p50 / floor.p50, 2)}× / ${signed(s.p99 - floor.p99)}`;
      return [t.name, fmt(s.p50, 3), fmt(s.p90, 3), fmt(s.p99, 3), fmt(s.iqr, 3), vsFloor, s.n];
    });
    const d = summary(direct);
    const gov = summary(governanceUs);
    results.nonStreamed = { direct: d, added, governanceUs: gov };

    console.log(`\nAdded latency, non-streamed chat (~${body(false).length} B request; ${ROUNDS} interleaved rounds after ${WARMUP} warm-up and ${BURST} s of load per path; direct p50 ${fmt(d.p50, 3)} ms)`);
    console.log(table(['path', 'added p50 ms', 'p90 ms', 'p99 ms', 'IQR ms', 'vs floor: p50 ratio / p99 ms', 'rounds'], rows));
    console.log('targets: aduana p50 ≤ 1.2 × the floor\'s, p99 ≤ the floor\'s + 1 ms');
    console.log(`aduana governance time (x-svc-latency-us): p50 ${fmt(gov.p50, 0)} µs, p90 ${fmt(gov.p90, 0)} µs, p99 ${fmt(gov.p99, 0)} µs (targets p50 ≤ 60, p99 ≤ 150)`);
    if (targets.length > 3) {
      const ours = (added['aduana'] as ReturnType<typeof summary>).p50;
      for (let k = 3; k < targets.length; k++) {
        const name = (targets[k] as Target).name;
        const peer = (added[name] as ReturnType<typeof summary>).p50;
        console.log(`${name} / aduana added-latency ratio (p50): ${fmt(peer / ours, 2)}×${name === 'aduana-routed' && opt.route === 'one' ? ' (target ≤ 1.05×)' : ''}`);
      }
      const translated = added['aduana-translated'];
      const routedOnly = added['aduana-routed'];
      if (translated && routedOnly) console.log(`translation adds ${fmt((translated.p50 - routedOnly.p50) * 1000, 0)} µs at p50 to the same routed call (the mock's Messages API answering in place of its chat completions)`);
    }

    for (const name of opt.format as string[]) {
      const f = FORMATS[name];
      if (!f) throw new Error(`--format: ${Object.keys(FORMATS).join(' or ')}`);
      results[`format:${name}`] = await compareFormat(f, mock.url, relay.url, gw.agentsUrl, admin, (added['aduana'] as ReturnType<typeof summary>).p50, (added['floor'] as ReturnType<typeof summary>).p50);
    }

    const streamTargets = targets.slice(0, 3); // direct, floor, aduana; peers' streaming is not compared (see the docs)
    const streamRounds = Math.max(200, Math.floor(ROUNDS / 3));
    const ttfb = await paired(streamTargets, body(true), streamRounds, (r) => r.ttfb);
    const first = await paired(streamTargets, body(true), streamRounds, (r) => r.firstContent);
    const addedOver = (xs: number[][], k: number) => summary((xs[k] as number[]).map((v, i) => v - ((xs[0] as number[])[i] as number)));
    const streamed = { floor: { ttfbAdded: addedOver(ttfb, 1), firstContentAdded: addedOver(first, 1) }, aduana: { ttfbAdded: addedOver(ttfb, 2), firstContentAdded: addedOver(first, 2) } };
    results.streamed = streamed;
    const srow = (label: string, s: ReturnType<typeof summary>, f: ReturnType<typeof summary> | null) => [
      label, fmt(s.p50, 3), fmt(s.p90, 3), fmt(s.p99, 3), fmt(s.iqr, 3), f ? `${fmt(s.p50 / f.p50, 2)}× / ${signed(s.p99 - f.p99)}` : '',
    ];
    console.log(`\nStreamed chat (aduana: PII stream redaction on): added time to first byte and to first content token`);
    console.log(table(['measure', 'added p50 ms', 'p90 ms', 'p99 ms', 'IQR ms', 'vs floor: p50 ratio / p99 ms'], [
      srow('floor, first byte', streamed.floor.ttfbAdded, null),
      srow('aduana, first byte', streamed.aduana.ttfbAdded, streamed.floor.ttfbAdded),
      srow('floor, first content token', streamed.floor.firstContentAdded, null),
      srow('aduana, first content token', streamed.aduana.firstContentAdded, streamed.floor.firstContentAdded),
    ]));
    console.log('targets: aduana first byte p50 ≤ 1.2 × the floor\'s, p99 ≤ the floor\'s + 1 ms');

    const tput: Record<string, unknown> = {};
    const trows: (string | number)[][] = [];
    let cpu = { main: NaN, writer: NaN, next: NaN, all: NaN };
    let routedCpu: typeof cpu | null = null;
    let translatedCpu: typeof cpu | null = null;
    let loadWindow = { from: 0, to: 0 };
    let stepsUnderLoad: Map<string, number> | null = null;
    for (const t of targets) {
      const cpu0 = t.name.startsWith('aduana') ? await threadCpuMs(gw.pid) : null;
      const from = Math.ceil(Date.now() / 1000);
      const stepsFrom = opt.steps && t.name === 'aduana' ? await stepTotals(gw.url, admin) : null;
      const r = await throughput(t, body(false));
      if (stepsFrom) stepsUnderLoad = stepMeans(stepsFrom, await stepTotals(gw.url, admin));
      if (cpu0 && t.name === 'aduana-routed') routedCpu = cpuPerCallUs(cpu0, await threadCpuMs(gw.pid), r.reqPerSec * DURATION);
      else if (cpu0 && t.name === 'aduana-translated') translatedCpu = cpuPerCallUs(cpu0, await threadCpuMs(gw.pid), r.reqPerSec * DURATION);
      else if (cpu0) {
        cpu = cpuPerCallUs(cpu0, await threadCpuMs(gw.pid), r.reqPerSec * DURATION);
        loadWindow = { from, to: Math.floor(Date.now() / 1000) - 1 };
      }
      tput[t.name] = r;
      trows.push([t.name, Math.round(r.reqPerSec), fmt(r.p50, 2), fmt(r.p99, 2), r.non2xx, r.errors]);
    }
    results.throughput = { concurrency: CONCURRENCY, durationS: DURATION, ...(routedCpu ? { routedCpuPerCallUs: { main: routedCpu.main, all: routedCpu.all } } : {}), ...(translatedCpu ? { translatedCpuPerCallUs: { main: translatedCpu.main, all: translatedCpu.all } } : {}), gatewayCpuPerCallUs: cpu.all, gatewayMainThreadCpuPerCallUs: cpu.main, gatewayBusiestOtherThreadCpuPerCallUs: cpu.writer, gatewayNextOtherThreadCpuPerCallUs: cpu.next, ...tput };
    console.log(`\nThroughput, non-streamed chat, ${CONCURRENCY} connections, ${DURATION} s each (${(tput['direct'] as { tool: string }).tool} on the same 2 cores)`);
    console.log(table(['path', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'], trows));
    // With one thread the busiest other thread is the ledger's writer; with GATEWAY_THREADS above 1, a request thread.
    console.log(`gateway CPU per call during the aduana run: ${fmt(cpu.main, 0)} µs on its main thread, ${fmt(cpu.writer, 0)} µs and ${fmt(cpu.next, 0)} µs on its two busiest other threads, ${fmt(cpu.all, 0)} µs on all its threads (target ≤ 200)`);
    if (routedCpu) console.log(`gateway CPU per call during the aduana-routed run: ${fmt(routedCpu.main, 0)} µs on its main thread, ${fmt(routedCpu.writer, 0)} µs and ${fmt(routedCpu.next, 0)} µs on its two busiest other threads, ${fmt(routedCpu.all, 0)} µs on all its threads`);
    if (translatedCpu) console.log(`gateway CPU per call during the aduana-translated run: ${fmt(translatedCpu.main, 0)} µs on its main thread, ${fmt(translatedCpu.all, 0)} µs on all its threads`);
    // The gateway's own record of its governance time under that load (whole seconds inside the run; the stats API
    // gives the mean and tail of the samples, not the median).
    const stats = await fetch(`${gw.url}/v1/telemetry/query/stats?metric=decision.latency_ms&from=${loadWindow.from}&to=${loadWindow.to}`, { headers: { authorization: `Bearer ${admin}` } });
    if (stats.ok) {
      const g = (await stats.json()) as { avg: number; p95: number; p99: number };
      results.governanceUnderLoadUs = { avg: g.avg * 1000, p95: g.p95 * 1000, p99: g.p99 * 1000 };
      console.log(`aduana governance time under that load (its telemetry, decision.latency_ms): mean ${fmt(g.avg * 1000, 0)} µs, p95 ${fmt(g.p95 * 1000, 0)} µs, p99 ${fmt(g.p99 * 1000, 0)} µs`);
    }

    if (stepsSequential && stepsUnderLoad) {
      const under = stepsUnderLoad;
      results.stepMeansUs = { sequential: Object.fromEntries(stepsSequential), underLoad: Object.fromEntries(under) };
      console.log(`\naduana's steps (PROXY_STEP_TIMINGS), mean µs: one call at a time (the paired rounds) and under ${CONCURRENCY} connections`);
      console.log(table(['step', 'one at a time', 'under load'], [...stepsSequential].map(([step, us]) => [step, fmt(us, 1), fmt(under.get(step) ?? NaN, 1)])));
    }

    const mem = (m: { rss: number; anon: number }) => `RSS ${fmt(m.rss, 1)} MiB (own memory ${fmt(m.anon, 1)} MiB)`;
    console.log(`\nGateway process: start-up to listening ${fmt(gw.startupMs, 0)} ms (target ≤ 500)`);
    console.log(`  paid pack compiled, 0.5 s after the warm-up: ${mem(afterWarmup)}`);
    if (idle) console.log(`  idle, ${QUIET} s without traffic:           ${mem(idle)} (target ≤ 100 MiB)`);
    console.log(`  under 100 concurrent streams:               ${mem(peak)} (target ≤ 200 MiB)`);
    for (const t of targets) await t.pool.close();
  } finally {
    await gw.stop();
    relay.stop();
    mock.stop();
  }
  console.log(`\nresults: ${writeResults('overhead', results)}`);
}

/** Each step's sum (s) and count so far, from the gateway's aduana_proxy_step_seconds series. */
async function stepTotals(url: string, token: string): Promise<Map<string, { sum: number; count: number }>> {
  const text = await (await fetch(`${url}/v1/telemetry/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const totals = new Map<string, { sum: number; count: number }>();
  for (const m of text.matchAll(/^aduana_proxy_step_seconds_(sum|count)\{step="([^"]+)"\} (\S+)$/gm)) {
    const t = totals.get(m[2] as string) ?? { sum: 0, count: 0 };
    t[m[1] as 'sum' | 'count'] = Number(m[3]);
    totals.set(m[2] as string, t);
  }
  return totals;
}

/** Mean µs of each step observed between two readings (steps not observed in between are left out). */
function stepMeans(before: Map<string, { sum: number; count: number }>, after: Map<string, { sum: number; count: number }>): Map<string, number> {
  const means = new Map<string, number>();
  for (const [step, a] of after) {
    const b = before.get(step) ?? { sum: 0, count: 0 };
    if (a.count > b.count) means.set(step, ((a.sum - b.sum) / (a.count - b.count)) * 1e6);
  }
  return means;
}

await main();
