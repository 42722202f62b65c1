import { compilePolicySet } from './compile-policy-set.js';
import type { PolicyRecord } from './policy-record.js';
import { mostSevere, VERDICT_RANK, verdictOf, type Verdict } from './verdict.js';
import type { Triggered } from './evaluation.js';
import type { PolicyAction, PolicyType } from './policy-record.js';
import type { LedgerEntry } from '../ledger/index.js';
import { isAimed, ScopeMatcher, scopedAction, type Door } from './policy-scope.js';

/** A trigger as the ledger keeps it in an entry's `decision`. */
interface ChainedTrigger {
  action: PolicyAction;
  policy_id: string;
  risk: number;
  type: PolicyType;
}

/** One recorded action judged again with the candidate policy. */
export interface DryRunAction {
  seq: number;
  decision_id: string;
  event_type: string;
  agent_id: string | null;
  created_at: string;
  old_verdict: Verdict;
  /** Policy name (or id, or a built-in rule) that decided the recorded verdict; '' when nothing triggered. */
  old_rule: string;
  /** null when the action could not be re-judged. */
  new_verdict: Verdict | null;
  new_rule: string | null;
  changed: boolean | null;
  rejudged: boolean;
  why: string;
}

export interface DryRunTotals {
  actions: number;
  rejudged: number;
  not_rejudged: number;
  changed: number;
  /** Counts per change, keyed `OLD→NEW`. */
  changes: Record<string, number>;
}

/** Policy types judged only from an action's text, which the ledger keeps as a SHA-256, never as text. */
const READS_TEXT: ReadonlySet<PolicyType> = new Set(['content_filter', 'entropy_check', 'pii_redaction', 'hallucination_shield']);

/**
 * Judges recorded actions again as if `candidate` replaced the policy of its id (or were added): every other policy's
 * triggers are taken as the ledger recorded them, and the candidate's own is computed where what it reads was kept.
 * What the ledger keeps of an action: for `/v1/decide` its type, method and target (a tool call's target is its tool),
 * for an MCP tool call its server and tool, for a proxied call the model it asked for (and Azure's deployment); never
 * the text (only hashes), and not the counters rate limits, budgets and session risk were judged by. So a
 * `tool_access` candidate is judged on tool calls and a `model_access` one on proxied calls; any other type only where
 * the recorded verdict is already DENY by another policy (the most severe verdict, whatever the candidate does) or the
 * candidate is disabled (it then triggers nothing). A scoped candidate triggers nothing on an action outside its scope,
 * read from what the ledger kept: the agent id, the door (the event type's family), the model, the MCP server and
 * tool; where it did not keep what the scope reads (an Azure call's deployment), the action is not judged again.
 */
export function dryRun(candidate: PolicyRecord, entries: readonly LedgerEntry[], names: ReadonlyMap<string, string>): { actions: DryRunAction[]; totals: DryRunTotals } {
  // The candidate alone: its tool (model) trigger is what toolVerdict (modelVerdict) answers for it. Its scope is
  // judged here, against what each entry kept.
  const { scope: _scope, ...unscoped } = candidate;
  const alone = compilePolicySet(candidate.tenant_id, 0, [unscoped]);
  const aim = isAimed(candidate.scope) ? new ScopeMatcher(candidate.scope) : null;
  const nameOf = (id: string) => (id === candidate.id ? candidate.name : (names.get(id) ?? id));
  const actions: DryRunAction[] = [];
  for (const e of entries) {
    const d = e.decision as { decision_id: string; execution_status: Verdict; rule: string; triggered: ChainedTrigger[] };
    const old: DryRunAction = {
      seq: e.seq,
      decision_id: d.decision_id,
      event_type: e.event_type,
      agent_id: typeof e.metadata['agent_id'] === 'string' ? e.metadata['agent_id'] : null,
      created_at: e.created_at,
      old_verdict: d.execution_status,
      old_rule: d.rule === '' ? '' : nameOf(d.rule),
      new_verdict: null,
      new_rule: null,
      changed: null,
      rejudged: false,
      why: '',
    };
    actions.push(judge(old, d, e, candidate, alone, aim, nameOf));
  }
  const totals: DryRunTotals = { actions: actions.length, rejudged: 0, not_rejudged: 0, changed: 0, changes: {} };
  for (const a of actions) {
    if (!a.rejudged) totals.not_rejudged++;
    else totals.rejudged++;
    if (a.changed === true) {
      totals.changed++;
      const key = `${a.old_verdict}→${a.new_verdict as Verdict}`;
      totals.changes[key] = (totals.changes[key] ?? 0) + 1;
    }
  }
  return { actions, totals };
}

function judge(
  out: DryRunAction,
  d: { execution_status: Verdict; rule: string; triggered: ChainedTrigger[] },
  e: LedgerEntry,
  candidate: PolicyRecord,
  alone: ReturnType<typeof compilePolicySet>,
  aim: ScopeMatcher | null,
  nameOf: (id: string) => string,
): DryRunAction {
  const done = (verdict: Verdict, rule: string, why: string): DryRunAction => ({
    ...out,
    new_verdict: verdict,
    new_rule: rule === '' ? '' : nameOf(rule),
    changed: verdict !== out.old_verdict,
    rejudged: true,
    why,
  });
  const recorded = verdictFrom(d.triggered);
  // Not decided by the policies (a suspended agent, an output check's stop): the policies' change does not reach it.
  if (recorded.verdict !== d.execution_status) return done(d.execution_status, d.rule, `decided by ${d.rule === '' ? 'the call itself' : nameOf(d.rule)}, not by the policies' input checks`);
  const kept = d.triggered.filter((t) => t.policy_id !== candidate.id);
  const others = verdictFrom(kept);
  if (!candidate.enabled) return done(others.verdict, others.rule, 'the candidate is disabled: it triggers nothing');
  if (candidate.scope?.direction === 'output') return done(others.verdict, others.rule, "the candidate's scope is the output: it judges no request");
  if (aim !== null) {
    const inScope = scopeMatches(aim, e);
    if (inScope === false) return done(others.verdict, others.rule, "outside the candidate's scope: it triggers nothing");
    if (inScope === null) {
      if (others.verdict === 'DENY') return done('DENY', others.rule, `already denied by ${nameOf(others.rule)}, whatever the candidate does`);
      return { ...out, why: "the ledger did not keep what the candidate's scope reads of this action (the deployment of this Azure call)" };
    }
  }
  const tool = toolOf(e);
  if (candidate.type === 'tool_access' && tool !== undefined) {
    const t = tool === null ? null : alone.toolVerdict(tool.name, tool.server);
    const all = t === null ? kept : [...kept, { action: t.action, policy_id: t.policyId, risk: t.risk, type: t.type }];
    const v = verdictFrom(all);
    const why = tool === null ? 'no tool was called: a tool_access policy does not judge it' : t === null ? `tool "${tool.name}" passes the candidate` : t.reason;
    return done(v.verdict, v.rule, why);
  }
  const model = candidate.type === 'model_access' ? modelOf(e) : undefined;
  if (model !== undefined) {
    // Azure's deployment is judged beside the model when it differs, as the call was: the more severe trigger counts.
    const t = model === null ? null : worse(alone.modelVerdict(model.name), model.deployment === null || model.deployment === model.name ? null : alone.modelVerdict(model.deployment));
    const all = t === null ? kept : [...kept, { action: t.action, policy_id: t.policyId, risk: t.risk, type: t.type }];
    const v = verdictFrom(all);
    const why = model === null ? 'no model was asked for: a model_access policy does not judge it' : t === null ? `model "${model.name}" passes the candidate` : t.reason;
    return done(v.verdict, v.rule, why);
  }
  if (others.verdict === 'DENY') return done('DENY', others.rule, `already denied by ${nameOf(others.rule)}, whatever the candidate does`);
  const why =
    candidate.type === 'tool_access'
      ? 'the tools named in this call\'s answer are not kept in the ledger'
      : candidate.type === 'model_access'
        ? 'the deployment of this Azure call was not recorded (an entry written before it was)'
        : READS_TEXT.has(candidate.type)
        ? `a ${candidate.type} policy reads the action's text, which the ledger keeps only as a SHA-256`
          : `a ${candidate.type} policy depends on counters at the time of the action, which are not recorded`;
  return { ...out, why };
}

/** The door a recorded action came in by, from its event type's family. */
function doorOf(e: LedgerEntry): Door {
  if (e.event_type === 'decision') return 'decide';
  if (e.event_type.startsWith('proxy.')) return 'proxy';
  if (e.event_type.startsWith('mcp.')) return 'mcp';
  return 'events';
}

/**
 * Whether a recorded action is within a scope, as the call was judged: its door, agent id, model (a proxied call's),
 * MCP server and tool (an MCP tool call's; a decision's tool call names only its tool). null: not known (an Azure call
 * whose deployment was not recorded, its model outside the scope).
 */
function scopeMatches(aim: ScopeMatcher, e: LedgerEntry): boolean | null {
  const door = doorOf(e);
  const agent = typeof e.metadata['agent_id'] === 'string' ? e.metadata['agent_id'] : '';
  const model = door === 'proxy' ? modelOf(e) : null;
  const tool = door === 'mcp' || door === 'decide' ? toolOf(e) : null;
  if (model === undefined) {
    // The deployment is unknown: in scope when the model alone is; else it cannot be told.
    const p = e.payload as Record<string, unknown>;
    const route = p['route'] as { model?: unknown } | undefined;
    const name = typeof route?.model === 'string' ? route.model : typeof p['model'] === 'string' ? p['model'] : undefined;
    return aim.matches(scopedAction(door, agent, name)) ? true : null;
  }
  const server = tool === null || tool === undefined || tool.server === '' ? undefined : tool.server;
  return aim.matches(scopedAction(door, agent, model?.name, server, tool?.name, model?.deployment ?? undefined));
}

/** The tool a recorded action called (server '' for none), null when it called none, undefined when it is not known. */
function toolOf(e: LedgerEntry): { name: string; server: string } | null | undefined {
  const p = e.payload as Record<string, unknown>;
  if (e.event_type === 'mcp.tools.call' && typeof p['tool'] === 'string') return { name: p['tool'], server: typeof p['server'] === 'string' ? p['server'] : '' };
  if (e.event_type === 'decision') {
    const action = p['action'] as { type?: unknown; target?: unknown } | undefined;
    if (action?.type === 'tool_call') return { name: typeof action.target === 'string' ? action.target : '', server: '' };
    if (typeof action?.type === 'string') return null;
  }
  return undefined;
}

/**
 * The model a recorded action asked for (the name the agent wrote: a routed call's `route.model`, not the model that
 * answered) and, on Azure, the deployment its path named; null when it named none (not a proxied model call: a
 * decision, an MCP tool call, a passthrough such as a model list); undefined when not known.
 */
function modelOf(e: LedgerEntry): { name: string; deployment: string | null } | null | undefined {
  const p = e.payload as Record<string, unknown>;
  if (!e.event_type.startsWith('proxy.')) return null;
  const recorded = p['model'];
  // A judged proxied call always names a model (400 otherwise); a passthrough's entry records ''.
  if (typeof recorded !== 'string' || recorded === '') return null;
  const route = p['route'] as { model?: unknown } | undefined;
  const name = typeof route?.model === 'string' ? route.model : recorded;
  const endpoint = p['endpoint'];
  if (typeof endpoint === 'string' && endpoint.startsWith('azure.')) {
    return typeof p['deployment'] === 'string' ? { name, deployment: p['deployment'] } : undefined;
  }
  return { name, deployment: null };
}

/** The more severe of two triggers (the first of equals), or null when neither triggered. */
function worse(a: Triggered | null, b: Triggered | null): Triggered | null {
  if (a === null || b === null) return a ?? b;
  return VERDICT_RANK[verdictOf(b.action)] > VERDICT_RANK[verdictOf(a.action)] ? b : a;
}

function verdictFrom(triggered: readonly ChainedTrigger[]): { verdict: Verdict; rule: string } {
  const at = mostSevere(triggered, 'ALLOW');
  const verdict: Verdict = at < 0 ? 'ALLOW' : verdictOf((triggered[at] as ChainedTrigger).action);
  const rule = triggered.length === 0 ? '' : (triggered[at < 0 ? 0 : at] as ChainedTrigger).policy_id;
  return { verdict, rule };
}
