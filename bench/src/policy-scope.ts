/**
 * What a policy scope costs the request path (docs/policies.md, "Scope"): the paid pack judged on a ~1 KB prompt and
 * a ~1 KB answer, as a door does it (the set for the call, its input evaluation, its output evaluation).
 *   npx tsc -b gateway bench && node bench/dist/policy-scope.js
 * 1. unscoped: the pack alone; the door asks for the call's set and gets the tenant's own (what every tenant without
 *    a scoped policy pays: it must not move with scopes added to the code).
 * 2. scoped: the pack plus four scoped policies (by agent, model and door, door, MCP server), the calls rotating over
 *    eight agents: the set for the call is chosen by each scoped policy's globs, then found among the sets already
 *    built (two combinations here); and that choice alone.
 */
import { compilePolicySet, PACKS, PolicyValidator, TenantState, type PolicyRecord } from '@aduana/gateway';
import { fmt, microBench, table } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';

const PROMPT = `You are a helpful assistant for the logistics team. Summarise the following shipment notes in three bullet points
and flag anything that looks late. Notes: the pallet left the Campinas warehouse on Tuesday at 14:30 and was scanned at
the Curitiba hub two days later; version 2.4.1 of the routing service assigned it to lane 7 with 12 other parcels, and
the expected delivery window is 3 to 5 business days. The customer asked whether the order can be split into two
deliveries, whether insurance covers water damage, and how returns work for items over 30 kg. Please answer in
Portuguese, keep it under 120 words, use a friendly tone, and do not promise dates we cannot keep.`;
const ANSWER = PROMPT.replace('Summarise', 'Here is a summary of').slice(0, 1000);

const now = new Date().toISOString();
let n = 0;
const record = (p: Omit<PolicyRecord, 'id' | 'tenant_id' | 'enabled' | 'created_at' | 'updated_at' | 'pack_key'>): PolicyRecord =>
  ({ id: `pol_${String(++n).padStart(4, '0')}`, tenant_id: 'bench', enabled: true, created_at: now, updated_at: now, pack_key: null, ...p }) as PolicyRecord;

// The rules as a policy change stores them: every default filled in.
const validator = new PolicyValidator();
const pack = PACKS.RUNTIME_PAID_POLICIES.map((p) => record({ name: p.name, type: p.type, risk: p.risk, rules: validator.rules(p.type, p.rules) }));
const unscoped = compilePolicySet('bench', 1, pack);
const aimed = [
  record({ name: 'agents 0-3 models', type: 'model_access', risk: 70, rules: validator.rules('model_access', { allow: ['gpt-4o-mini'], action: 'DENY' }), scope: { agents: ['agent-0', 'agent-1', 'agent-2', 'agent-3'] } }),
  record({ name: 'pii off a trusted model', type: 'pii_redaction', risk: 20, rules: validator.rules('pii_redaction', { action: 'REDACT' }), scope: { models: ['gpt-4o*'], doors: ['proxy'] } }),
  record({ name: 'decide only', type: 'content_filter', risk: 60, rules: validator.rules('content_filter', { patterns: ['wire transfer'] }), scope: { doors: ['decide'] } }),
  record({ name: 'crm only', type: 'rate_limit', risk: 40, rules: validator.rules('rate_limit', { limit: 100, window_s: 60 }), scope: { servers: ['crm'] } }),
];
const scoped = compilePolicySet('bench', 1, [...pack, ...aimed]);

// Fresh string instances per call, as on the request path (RE2 caches the UTF-8 copy of the last string it saw).
const prompts = Array.from({ length: 64 }, (_, i) => PROMPT + ' '.repeat(i));
const answers = Array.from({ length: 64 }, (_, i) => ANSWER + ' '.repeat(i));
const agents = Array.from({ length: 8 }, (_, i) => `agent-${i}`);
const state = new TenantState('bench');
let i = 0;

/** One proxied call as the proxy judges it: the set for the call (preflight), its input, its answer. */
function judge(tenantSet: typeof unscoped): number {
  const k = i++ & 63;
  const agentId = agents[k & 7] as string;
  const set = tenantSet.narrow('proxy', agentId, 'gpt-4o-mini');
  const ev = set.evaluate({ tenantId: 'bench', agentId, sessionId: '', riskBudget: null, agentRiskBudget: null, text: prompts[k] as string, now: Date.now(), scoreOnly: true, model: 'gpt-4o-mini' }, state);
  return ev.triggered.length + set.evaluateOutput(answers[k] as string).triggered.length;
}

const results = await microBench({
  'unscoped: pack, input + output': () => judge(unscoped),
  'scoped: pack + 4 scoped, input + output': () => judge(scoped),
  'scoped: choosing the set alone': () => scoped.narrow('proxy', agents[i++ & 7] as string, 'gpt-4o-mini'),
});

console.log(`\nPolicy scope: the paid pack (${pack.length} policies; scoped: ${aimed.length} more), a ${PROMPT.length}-char prompt and a ${ANSWER.length}-char answer\n`);
console.log(table(['task', 'ops/s', 'mean µs', 'p50 µs', 'p99 µs'], results.map((r) => [r.name, r.opsPerSec, fmt(r.meanUs, 2), fmt(r.p50Us, 2), fmt(r.p99Us, 2)])));
console.log(`results: ${writeResults('policy-scope', { results })}`);
