import { GatewayError } from '../errors.js';
import { createPiiRedactor, type PiiEntity, type PiiRedactor } from './pii/index.js';
import { combineRisk } from './risk.js';
import { maxTokenEntropy } from './entropy.js';
import { CompiledParts, type Check, type ModelRule, type PatternOwner, type PiiPolicy, type ToolRule } from './compiled-parts.js';
import { PatternSet } from './pattern-set.js';
import { foldName } from './tool-globs.js';
import { compilePolicy } from './kinds/all-kinds.js';
import { periodKey, type TenantState } from './tenant-state.js';
import type { PolicyAction, PolicyRecord, PolicyType } from './policy-record.js';
import { mostSevere, VERDICT_RANK, verdictOf, type Verdict } from './verdict.js';
import type { Evaluation, EvaluationInput, OutputEvaluation, Triggered } from './evaluation.js';
import { isAimed, ScopeMatcher, scopedAction, type Door } from './policy-scope.js';

/**
 * What the text-only part of evaluation found in an input (plain data, so a worker thread can compute it): indices of
 * matching content-filter owners, the highest entropy per entropy check, the PII entities present.
 */
export interface InputFindings {
  filters: number[];
  entropy: number[];
  pii: string[];
}

export interface PolicySet {
  readonly tenantId: string;
  readonly version: number;
  /** The policies it was compiled from (a worker compiles the same set from them). */
  readonly records: readonly PolicyRecord[];
  /** Value of `x-svc-policy`. */
  readonly label: string;
  /** Enabled policies (what `policies_evaluated` counts). */
  readonly size: number;
  /** Redactor for the input, when a REDACT pii policy targets it. */
  readonly inputRedactor: PiiRedactor | null;
  /** Redactor for the output (answers, streams included), when a pii policy targets it. */
  readonly outputRedactor: PiiRedactor | null;
  /** Output content filters exist: streamed answers are checked window by window (the shield runs at the end). */
  readonly hasOutputFilters: boolean;
  readonly hallucinationShield: { id: string; risk: number; action: PolicyAction } | null;
  /** Characters of input text this set judges at most (413 past it). */
  readonly maxTextChars: number;
  /** Some policy reads the input's text (content filter on input, entropy, PII): token-id prompts cannot be judged. */
  readonly readsInputText: boolean;
  /** The `rate_limit` windows, in the order of `evaluate`'s shared estimates (docs/fleet.md, "Shared limits"). */
  readonly rateWindows: readonly RateWindow[];
  /** Some enabled `tool_access` policy judges the output (tools listed, tools an answer calls); false: those checks are skipped. */
  readonly hasToolAccess: boolean;
  /** Some enabled `model_access` policy exists; false: no model is judged. */
  readonly hasModelAccess: boolean;
  /**
   * Throws text_too_large (413) when the input's text is past what this set may scan. Never judging only a part and
   * allowing: a request is judged whole or refused (docs/policies.md, "Limits"). With `findings` (from `scanInput`,
   * possibly in a worker) the text is not scanned again. With `sharedRates` (each of `rateWindows`' tenant-wide
   * estimate, from Redis, this request's hit included) a window is judged by the larger of that and this process's
   * own count, which is kept either way. With `input.tool`, the tenant's `tool_access` policies judge that tool in the
   * same evaluation; with `input.model`, its `model_access` policies judge that model.
   */
  evaluate(input: EvaluationInput, state: TenantState, findings?: InputFindings, sharedRates?: readonly number[]): Evaluation;
  /** The text-only part of evaluation: pure, no state (what a worker thread runs for large inputs). */
  scanInput(text: string): InputFindings;
  evaluateOutput(text: string): OutputEvaluation;
  /**
   * The most severe output `tool_access` trigger for a tool (`server`: its MCP server's name, '' for none), or null
   * when the tool may be used: what hides a tool from an MCP `tools/list` and judges a tool call named in an answer.
   */
  toolVerdict(name: string, server: string): Triggered | null;
  /** The most severe `model_access` trigger for a model name, or null when it may be asked for (what a dry run asks). */
  modelVerdict(name: string): Triggered | null;
  /** Some enabled policy is aimed (scoped by agents, models, MCP servers, tools or doors): each action's set is `narrow`'s. */
  readonly aimed: boolean;
  /** '' for the tenant's set; for a narrowed one, which aimed policies apply ('1') or not ('0'), in the set's order. */
  readonly scopeMask: string;
  /**
   * The set that judges one action (docs/policies.md, "Scope"): this set itself when no policy is aimed (nothing is
   * computed), else the set of the policies whose scope the action matches, built at its first use and kept. What the
   * action lacks (no model, no MCP server or tool) matches no scope that asks for it.
   */
  narrow(door: Door, agentId: string, model?: string, server?: string, tool?: string, deployment?: string): PolicySet;
  /** The narrowed set of a `scopeMask` (a worker thread judges with the set the request was judged with). */
  withMask(mask: string): PolicySet;
}

const EMPTY_OWNERS: PatternOwner[] = [];

/** One `rate_limit` policy's window: where its hits are counted (per agent or for the tenant) and for how long. */
export interface RateWindow {
  policyId: string;
  windowMs: number;
  perAgent: boolean;
}

/** Agent id under which a tenant's total spend is kept (agent ids are never empty). */
export const TENANT_SPEND = '';

/** Narrowed sets kept per tenant's set: one per combination of aimed policies that apply, the oldest dropped past it. */
const MAX_NARROWED = 64;

/**
 * Compiles a tenant's policies into one evaluator. Runs on every policy change (and at first use after start),
 * never per request: every RE2 pattern, pattern set and PII recognizer is built here. With aimed policies, the set of
 * each combination of them that applies shares these (its own PII redactor aside, when it redacts other entities) and
 * only drops the policies that do not apply.
 */
export function compilePolicySet(tenantId: string, version: number, policies: readonly PolicyRecord[], maxTextChars = Number.MAX_SAFE_INTEGER): PolicySet {
  const enabled = policies.filter((p) => p.enabled);
  // Each type adds its part (policy-types.ts); the evaluator below then works on plain arrays.
  const parts = new CompiledParts();
  for (const p of enabled) addPolicy(p, parts);
  const aimed = enabled.filter((p) => isAimed(p.scope)).map((p) => ({ id: p.id, matcher: new ScopeMatcher(p.scope!) }));
  const shared: SharedParts = {
    tenantId,
    version,
    records: policies,
    label: `v${version}`,
    maxTextChars,
    size: enabled.length,
    parts,
    inSet: new PatternSet(parts.inFilters),
    outSet: new PatternSet(parts.outFilters),
    piiInScanner: parts.piiIn.length ? createPiiRedactor(union(parts.piiIn)) : null,
    redactors: new Map(),
    aimed: aimed.length > 0,
    narrow(door, agentId, model, server, tool, deployment) {
      if (aimed.length === 0) return root;
      const action = scopedAction(door, agentId, model, server, tool, deployment);
      let mask = '';
      for (const a of aimed) mask += a.matcher.matches(action) ? '1' : '0';
      return shared.withMask(mask);
    },
    withMask(mask) {
      if (aimed.length === 0 || mask === '' || mask === every) return root;
      const kept = narrowed.get(mask);
      if (kept !== undefined) return kept;
      if (mask.length !== aimed.length) throw new Error(`scope mask of ${mask.length} policies for a set aiming ${aimed.length}`);
      const excluded = new Set<string>();
      for (let i = 0; i < aimed.length; i++) if (mask.charCodeAt(i) !== 49) excluded.add((aimed[i] as { id: string }).id);
      const set = buildSet(shared, excluded, mask);
      if (narrowed.size >= MAX_NARROWED) narrowed.delete(narrowed.keys().next().value as string);
      narrowed.set(mask, set);
      return set;
    },
  };
  const every = '1'.repeat(aimed.length);
  const narrowed = new Map<string, PolicySet>();
  const root = buildSet(shared, null, '');
  return root;
}

/** What a tenant's set and every set narrowed from it share: compiled once, at policy-change time. */
interface SharedParts {
  tenantId: string;
  version: number;
  records: readonly PolicyRecord[];
  label: string;
  maxTextChars: number;
  /** Enabled policies. */
  size: number;
  parts: CompiledParts;
  inSet: PatternSet;
  outSet: PatternSet;
  /** Finds every entity some input pii policy looks for (a narrowed set keeps what its own policies look for). */
  piiInScanner: PiiRedactor | null;
  /** Redactors by the entities they redact: narrowed sets that redact the same ones share one. */
  redactors: Map<string, PiiRedactor>;
  aimed: boolean;
  narrow: PolicySet['narrow'];
  withMask: PolicySet['withMask'];
}

const union = (list: readonly PiiPolicy[]) => [...new Set(list.flatMap((p) => [...p.entities]))] as PiiEntity[];

/** The redactor of some pii policies' entities (null for none), shared by every set of the tenant that redacts those. */
function redactorOf(shared: SharedParts, list: readonly PiiPolicy[]): PiiRedactor | null {
  if (list.length === 0) return null;
  const entities = union(list);
  const key = [...entities].sort().join(',');
  let r = shared.redactors.get(key);
  if (r === undefined) {
    r = createPiiRedactor(entities);
    shared.redactors.set(key, r);
  }
  return r;
}

/**
 * A policy's parts; with a scope's direction, only those of that side: `input` keeps what judges the request (its
 * text, the tool it calls, the model it asks for, the counters), `output` what judges the answer (its text, the tools
 * it lists or calls, the shield).
 */
function addPolicy(p: PolicyRecord, parts: CompiledParts): void {
  const direction = p.scope?.direction;
  if (direction === undefined || direction === 'both') {
    compilePolicy(p, parts);
    return;
  }
  const own = new CompiledParts();
  own.rateChecks = parts.rateChecks;
  own.entropyChecks = parts.entropyChecks;
  compilePolicy(p, own);
  if (direction === 'input') {
    parts.checks.push(...own.checks);
    parts.rateChecks = own.rateChecks;
    parts.entropyChecks = own.entropyChecks;
    parts.inFilters.push(...own.inFilters);
    parts.piiIn.push(...own.piiIn);
    parts.bonds.push(...own.bonds);
    parts.tools.push(...own.tools);
    parts.models.push(...own.models);
  } else {
    parts.outFilters.push(...own.outFilters);
    parts.piiOut.push(...own.piiOut);
    parts.shields.push(...own.shields);
    parts.toolsOut.push(...own.toolsOut);
  }
}

/** The checks of the policies kept, their windows and entropy results renumbered in order (as `rateWindows` lists them). */
function keptChecks(checks: readonly Check[], excluded: ReadonlySet<string>): Check[] {
  let rate = 0;
  let entropy = 0;
  const out: Check[] = [];
  for (const c of checks) {
    if (excluded.has(c.id)) continue;
    if (c.kind === 'rate') out.push({ ...c, index: rate++ });
    else if (c.kind === 'entropy') out.push({ ...c, index: entropy++ });
    else out.push(c);
  }
  return out;
}

/**
 * A set over the shared parts: the tenant's (`excluded` null: every enabled policy) or a narrowed one, without the
 * aimed policies in `excluded`. Its pattern sets are the tenant's, their matches of an excluded policy dropped.
 */
function buildSet(shared: SharedParts, excluded: ReadonlySet<string> | null, scopeMask: string): PolicySet {
  const { tenantId, version, records, label, maxTextChars, parts, inSet, outSet } = shared;
  const keep = <T extends { id: string }>(list: T[]): T[] => (excluded === null ? list : list.filter((x) => !excluded.has(x.id)));
  const checks = excluded === null ? parts.checks : keptChecks(parts.checks, excluded);
  const piiIn = keep(parts.piiIn);
  const piiOut = keep(parts.piiOut);
  const bonds = keep(parts.bonds);
  const tools = keep(parts.tools);
  const toolsOut = keep(parts.toolsOut);
  const models = keep(parts.models);
  const shield = keep(parts.shields)[0] ?? null;
  const hasInFilters = inSet.set !== null && (excluded === null || inSet.owners.some((o) => !excluded.has(o.id)));
  const hasOutFilters = outSet.set !== null && (excluded === null || outSet.owners.some((o) => !excluded.has(o.id)));
  const piiInScanner = piiIn.length ? shared.piiInScanner : null;
  const inputRedactor = redactorOf(shared, piiIn.filter((p) => p.action === 'REDACT'));
  const outputRedactor = redactorOf(shared, piiOut);
  const size = shared.size - (excluded === null ? 0 : excluded.size);
  const readsInputText = hasInFilters || piiInScanner !== null || checks.some((c) => c.kind === 'entropy');
  const rateWindows: RateWindow[] = [];
  for (const c of checks) if (c.kind === 'rate') rateWindows[c.index] = { policyId: c.id, windowMs: c.windowMs, perAgent: c.perAgent };

  /** The input's UTF-8 bytes, made once when both RE2 sets read them (each would otherwise convert the string). */
  const bothSets = hasInFilters && piiInScanner !== null;
  const utf8Once = (text: string): Buffer | undefined => (bothSets && text.length > 0 ? Buffer.from(text, 'utf8') : undefined);

  function decide(triggered: Triggered[]): { verdict: Verdict; rule: string; riskScore: number } {
    const at = mostSevere(triggered, 'ALLOW');
    const verdict: Verdict = at < 0 ? 'ALLOW' : verdictOf((triggered[at] as Triggered).action);
    // An ALLOW with triggers (FLAG, REDACT) names the first of them.
    const rule = triggered.length === 0 ? '' : (triggered[at < 0 ? 0 : at] as Triggered).policyId;
    return { verdict, rule, riskScore: combineRisk(triggered.map((t) => t.risk)) };
  }

  return {
    tenantId,
    version,
    records,
    label,
    size,
    inputRedactor,
    outputRedactor,
    hasOutputFilters: hasOutFilters,
    hallucinationShield: shield,
    readsInputText,
    rateWindows,
    maxTextChars,
    hasToolAccess: toolsOut.length > 0,
    hasModelAccess: models.length > 0,
    aimed: shared.aimed,
    scopeMask,
    narrow: shared.narrow,
    withMask: shared.withMask,

    scanInput(text: string): InputFindings {
      const owners: PatternOwner[] = [];
      const utf8 = utf8Once(text);
      if (hasInFilters) inSet.matches(text, owners, utf8);
      const entropy: number[] = [];
      for (const c of checks) if (c.kind === 'entropy') entropy[c.index] = maxTokenEntropy(text, c.minLength);
      const pii = piiInScanner ? [...new Set(piiInScanner.scan(text, utf8).map((m) => m.entity))] : [];
      return { filters: owners.map((o) => inSet.owners.indexOf(o)), entropy, pii };
    },

    evaluate(input: EvaluationInput, state: TenantState, findings?: InputFindings, sharedRates?: readonly number[]): Evaluation {
      const triggered: Triggered[] = [];
      const text = input.text;
      if (readsInputText && text.length > maxTextChars) {
        throw new GatewayError('text_too_large', `the request carries ${text.length} characters of text; this tenant's policies judge at most ${maxTextChars}`);
      }

      const utf8 = findings ? undefined : utf8Once(text);
      let owners: PatternOwner[] = hasInFilters ? [] : EMPTY_OWNERS;
      if (findings) owners = findings.filters.map((i) => inSet.owners[i] as PatternOwner);
      else if (hasInFilters) inSet.matches(text, owners, utf8);
      for (const o of owners) {
        // The tenant's pattern set, shared: a pattern of a policy this set leaves out matches for nothing.
        if (excluded !== null && excluded.has(o.id)) continue;
        triggered.push(trig(o.id, 'content_filter', o.action, o.risk, 'input matched a content filter pattern'));
      }

      for (const c of checks) {
        if (c.kind === 'rate') {
          if (input.scoreOnly) continue;
          const key = c.perAgent ? `${c.id}\0${input.agentId}` : c.id;
          const count = state.hit(key, input.now, c.windowMs);
          // Counted tenant-wide on Redis: never judged by less than this process's own count.
          const n = sharedRates === undefined ? count : Math.max(count, sharedRates[c.index] ?? 0);
          if (n > c.limit) triggered.push(trig(c.id, 'rate_limit', c.action, c.risk, `more than ${c.limit} requests in ${c.windowMs / 1000} s`));
        } else if (c.kind === 'entropy') {
          const h = findings ? (findings.entropy[c.index] ?? 0) : maxTokenEntropy(text, c.minLength);
          if (h >= c.threshold) triggered.push(trig(c.id, 'entropy_check', c.action, c.risk, `token of ${h.toFixed(2)} bits/char (threshold ${c.threshold})`));
        } else {
          // The tenant's total is kept under the empty agent id (agent ids are never empty).
          const spent = state.spent(`${c.perAgent ? input.agentId : TENANT_SPEND}\0${periodKey(c.period, input.now)}`, input.now);
          if (spent >= c.max) triggered.push(trig(c.id, 'budget', c.action, c.risk, `${c.perAgent ? 'agent' : 'tenant'} spent ${spent.toFixed(4)} BRL of ${c.max} this ${c.period}`));
        }
      }

      let redactInput = false;
      if (piiInScanner) {
        const found: readonly string[] = findings ? findings.pii : piiInScanner.scan(text, utf8).map((m) => m.entity);
        if (found.length > 0) {
          for (const p of piiIn) {
            const hits = found.filter((e) => p.entities.has(e));
            if (hits.length === 0) continue;
            if (p.action === 'REDACT') redactInput = true;
            const kinds = [...new Set(hits)].join(', ');
            triggered.push(trig(p.id, 'pii_redaction', p.action, p.risk, `personal data in input: ${kinds}`));
          }
        }
      }

      if (input.tool !== undefined && tools.length > 0) {
        const folded = foldName(input.tool.name);
        for (const r of tools) {
          const t = toolTrigger(r, folded, input.tool.name, input.tool.server);
          if (t !== null) triggered.push(t);
        }
      }

      if (input.model !== undefined && models.length > 0) {
        const model = input.model;
        const folded = foldName(model);
        // Azure's deployment, when the body named another model: one trigger per policy, whichever name tripped it.
        const other = input.deployment !== undefined && input.deployment !== '' && input.deployment !== model ? input.deployment : null;
        const otherFolded = other === null ? '' : foldName(other);
        for (const r of models) {
          const t = modelTrigger(r, folded, model) ?? (other === null ? null : modelTrigger(r, otherFolded, other));
          if (t !== null) triggered.push(t);
        }
      }

      if (bonds.length > 0) {
        // Per (agent, session): one agent's session never spends another's; no session id = the agent's own.
        const sessionKey = `${input.agentId}\0${input.sessionId}`;
        const prior = state.sessionRisk(sessionKey, input.now);
        const current = combineRisk(triggered.map((t) => t.risk));
        for (const b of bonds) {
          const claimed = input.riskBudget ?? input.agentRiskBudget ?? b.defaultBudget;
          // A budget the caller claims never exceeds the policy's ceiling; with none claimed, the ceiling applies.
          const budget = b.maxBudget === null ? claimed : claimed === null ? b.maxBudget : Math.min(claimed, b.maxBudget);
          if (budget !== null && prior + current > budget) {
            triggered.push(trig(b.id, 'bond_enforcement', b.action, b.risk, `session risk ${(prior + current).toFixed(2)} exceeds budget ${budget}`));
          }
        }
        const { verdict, rule, riskScore } = decide(triggered);
        if (verdict === 'ALLOW' && !input.scoreOnly) state.addSessionRisk(sessionKey, riskScore, input.now);
        return { verdict, rule, riskScore, policiesEvaluated: size, triggered, redactInput };
      }

      const { verdict, rule, riskScore } = decide(triggered);
      return { verdict, rule, riskScore, policiesEvaluated: size, triggered, redactInput };
    },

    evaluateOutput(text: string): OutputEvaluation {
      const triggered: Triggered[] = [];
      const owners: PatternOwner[] = [];
      if (hasOutFilters) outSet.matches(text, owners);
      for (const o of owners) {
        if (excluded !== null && excluded.has(o.id)) continue;
        triggered.push(trig(o.id, 'content_filter', o.action, o.risk, 'output matched a content filter pattern'));
      }
      const { verdict, rule, riskScore } = decide(triggered);
      return { verdict, rule, riskScore, triggered };
    },

    toolVerdict(name: string, server: string): Triggered | null {
      let worst: Triggered | null = null;
      if (toolsOut.length === 0) return worst;
      const folded = foldName(name);
      for (const r of toolsOut) {
        if (worst !== null && VERDICT_RANK[verdictOf(r.action)] <= VERDICT_RANK[verdictOf(worst.action)]) continue;
        const t = toolTrigger(r, folded, name, server);
        if (t !== null) worst = t;
      }
      return worst;
    },

    modelVerdict(name: string): Triggered | null {
      let worst: Triggered | null = null;
      if (models.length === 0) return worst;
      const folded = foldName(name);
      for (const r of models) {
        if (worst !== null && VERDICT_RANK[verdictOf(r.action)] <= VERDICT_RANK[verdictOf(worst.action)]) continue;
        const t = modelTrigger(r, folded, name);
        if (t !== null) worst = t;
      }
      return worst;
    },
  };
}

/**
 * A `tool_access` policy's trigger for one tool, or null: outside its servers, or allowed (matching no deny glob, and
 * some allow glob when it has them). The globs match the name's folded form (`folded`, foldName); the reason
 * quotes the name as it was sent.
 */
function toolTrigger(r: ToolRule, folded: string, name: string, server: string): Triggered | null {
  if (r.servers !== null && !r.servers.has(server)) return null;
  let why: string;
  if (r.deny?.test(folded)) why = 'matches a denied name';
  else if (r.allow !== null && !r.allow.test(folded)) why = 'matches no allowed name';
  else return null;
  // The name comes from a caller or a model: quoted, and bounded in what the ledger keeps.
  const where = server === '' ? '' : ` of MCP server "${server}"`;
  return trig(r.id, 'tool_access', r.action, r.risk, `tool ${JSON.stringify(name.slice(0, 200))}${where} ${why}`);
}

/**
 * A `model_access` policy's trigger for one model name, or null when allowed (matching no deny glob, and some allow
 * glob when it has them). The globs match the folded name; the reason quotes the name as it was sent.
 */
function modelTrigger(r: ModelRule, folded: string, name: string): Triggered | null {
  let why: string;
  if (r.deny?.test(folded)) why = 'matches a denied name';
  else if (r.allow !== null && !r.allow.test(folded)) why = 'matches no allowed name';
  else return null;
  return trig(r.id, 'model_access', r.action, r.risk, `model ${JSON.stringify(name.slice(0, 200))} ${why}`);
}

function trig(policyId: string, type: PolicyType, action: PolicyAction, risk: number, reason: string): Triggered {
  return { policyId, type, action, risk, reason };
}
