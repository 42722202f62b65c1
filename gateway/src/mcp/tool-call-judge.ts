import { performance } from 'node:perf_hooks';
import { newId, sha256Hex } from '@aduana/shared';
import type { CallToolRequestParams } from '@modelcontextprotocol/sdk/types.js';
import { SUSPENDED, type AdmittedCaller } from '../governance/caller-admission.js';
import type { DecisionStore } from '../governance/decisions/decision-store.js';
import type { Evaluation } from '../policy/evaluation.js';
import type { PolicySet } from '../policy/compile-policy-set.js';
import { headedText, walkText } from '../policy/input-text.js';
import type { TenantLimits } from '../policy/runtime/tenant-limits.js';
import { isHeld } from '../policy/verdict.js';
import { HeldToolCalls } from './held-tool-calls.js';
import { RPC, rpcError, type Json } from './jsonrpc.js';
import type { ToolCallRecord, ToolCallRecorder } from './mcp-record.js';
import { RedactionCount } from '../policy/pii/entity-tally.js';

/** Who is calling, through which server: what every judgement of one HTTP request shares. */
export interface McpCaller extends AdmittedCaller {
  server: string;
  sessionId: string;
  traceId: string;
}

/** A judged tools/call: forwarded (its record completed with the result), or answered here with `refusal`. */
export interface JudgedCall {
  record: ToolCallRecord;
  refusal: Json | null;
}

/**
 * A `tools/call` is the action `{type: tool_call, target: <tool>, payload: <arguments>}` judged by the tenant's compiled
 * policies like a `/v1/decide` action: tool_access on the tool and server, content filters, entropy and PII on its
 * text, rate limits, budgets, and the session's risk budget (the MCP session is the session). REDACT rewrites the
 * arguments in place before they are sent; DENY answers a JSON-RPC error and nothing is sent; a held verdict answers
 * "held" with its decision id, and the same call retried after an administrator's resolution follows it.
 */
export class ToolCallJudge {
  constructor(
    private readonly limits: TenantLimits,
    private readonly recorder: ToolCallRecorder,
    private readonly decisions: DecisionStore,
    private readonly held: HeldToolCalls,
  ) {}

  async judge(caller: McpCaller, msg: Json): Promise<JudgedCall> {
    const started = performance.now();
    const id = msg['id'] as string | number;
    const params = readParams(msg['params']);
    if (params === null) throw new InvalidParams(id, 'tools/call: params.name must be a string, params.arguments an object and params._meta.progressToken a string or a number');
    const tool = params.name;
    const args = (params.arguments ?? {}) as Json;
    // Only what the gateway judges goes on: the name, the arguments and the progress token, never another field of
    // params or _meta (no text reaches the server unjudged, and no extension, such as a task, steers the call around
    // governance).
    const token = params._meta?.progressToken;
    const sent: CallToolRequestParams = { name: tool };
    if (params.arguments !== undefined) sent.arguments = args;
    if (token !== undefined) sent._meta = { progressToken: token };
    msg['params'] = sent;
    const argumentsJson = JSON.stringify(args);
    const set = toolSet(caller, tool);
    const evaluation = await this.#evaluate(caller, set, tool, args, typeof token === 'string' ? token : null);
    const record: ToolCallRecord = {
      decisionId: newId('dec'),
      tenantId: caller.tenantId,
      agentId: caller.agentId,
      sessionId: caller.sessionId,
      traceId: caller.traceId,
      server: caller.server,
      tool,
      argumentsSha256: sha256Hex(argumentsJson),
      policyLabel: caller.set.label,
      evaluation,
      outputTriggered: [],
      inputRedactions: 0,
      outputRedactions: 0,
      inputRedactionEntities: null,
      outputRedactionEntities: null,
      startedAt: Date.now(),
      governanceMs: 0,
      sample: this.recorder.draw(caller.tenantId),
    };
    const refusal = this.#verdict(caller, record, id, argumentsJson);
    if (refusal === null && evaluation.redactInput && set.inputRedactor) {
      const tally = new RedactionCount(set.inputRedactor);
      walkText(args, tally.redact);
      // A progress token is text the server reads too: redacted like the arguments (its notifications then carry it so).
      if (typeof token === 'string') sent._meta = { progressToken: tally.redact(token) };
      record.inputRedactions = tally.count;
      record.inputRedactionEntities = tally.entities;
    }
    // What is sent is these arguments, redacted in place: a reference, serialised only once the call is recorded.
    if (refusal === null && record.sample !== null) record.sample.arguments = args;
    record.governanceMs = performance.now() - started;
    return { record, refusal };
  }

  #evaluate(caller: McpCaller, set: PolicySet, tool: string, args: Json, token: string | null): Evaluation | Promise<Evaluation> {
    if (caller.agent.suspended) return SUSPENDED;
    return this.limits.judge(set, {
      tenantId: caller.tenantId,
      agentId: caller.agentId,
      sessionId: caller.sessionId,
      riskBudget: null,
      agentRiskBudget: caller.agent.riskBudget,
      text: headedText(token === null ? ['tool_call', tool] : ['tool_call', tool, token], args),
      now: Date.now(),
      tool: { name: tool, server: caller.server },
    });
  }

  /** Null when the call may go on; else the JSON-RPC error that answers it (recorded here). */
  #verdict(caller: McpCaller, record: ToolCallRecord, id: string | number, argumentsJson: string): Json | null {
    const e = record.evaluation;
    if (e.verdict === 'ALLOW') return null;
    const data = (verdict: string, rule: string, decisionId: string): Json => ({ verdict, rule, decision_id: decisionId, trace_id: caller.traceId, policy: caller.set.label });
    if (!isHeld(e.verdict)) {
      this.recorder.record(record, 'blocked');
      return rpcError(id, RPC.refused, `tool call refused by policy${e.rule ? ` ${e.rule}` : ''}`, data('DENIED', e.rule, record.decisionId));
    }
    const key = HeldToolCalls.keyOf(caller.tenantId, caller.agentId, caller.server, record.tool, argumentsJson);
    const heldBy = this.held.decisionOf(key);
    const resolution = heldBy === undefined ? undefined : this.decisions.get(caller.tenantId, heldBy)?.resolution?.status;
    if (resolution === 'APPROVED') {
      // The administrator's approval stands in for the held verdict, once; the call is recorded as allowed under it.
      this.held.release(key);
      record.evaluation = { ...e, verdict: 'ALLOW', rule: `approved:${heldBy}` };
      return null;
    }
    if (resolution === 'REJECTED') {
      this.recorder.record(record, 'blocked', 'DENY', e.rule);
      return rpcError(id, RPC.refused, `tool call rejected by an administrator (decision ${heldBy})`, data('DENIED', e.rule, heldBy!));
    }
    if (heldBy !== undefined) {
      return rpcError(id, RPC.held, `tool call held for approval: decision ${heldBy} is not resolved yet`, data(e.verdict, e.rule, heldBy));
    }
    this.recorder.record(record, 'held');
    this.held.hold(key, record.decisionId);
    return rpcError(id, RPC.held, `tool call held for approval by policy ${e.rule}: retry once an administrator resolves decision ${record.decisionId}`, data(e.verdict, e.rule, record.decisionId));
  }
}

/** The set that judges a tools/call of `tool`, and its result: the caller's, narrowed by the tool's name when a scope reads it. */
export function toolSet(caller: McpCaller, tool: string): PolicySet {
  return caller.set.aimed ? caller.set.narrow('mcp', caller.agentId, undefined, caller.server, tool) : caller.set;
}

/**
 * A tools/call's params as the protocol types them (`CallToolRequestParams`), or null. Checked by hand rather than
 * with the SDK's schema: loading the SDK's schemas costs a sidecar ~19 MiB and ~90 ms at start, for three fields.
 */
function readParams(p: unknown): CallToolRequestParams | null {
  if (!isObject(p)) return null;
  const params = p as CallToolRequestParams;
  if (typeof params.name !== 'string' || params.name === '' || params.name.length > 256) return null;
  const a = params.arguments as unknown;
  if (a !== undefined && !isObject(a)) return null;
  const meta = params._meta as unknown;
  if (meta === undefined) return params;
  if (!isObject(meta)) return null;
  const token = meta['progressToken'];
  if (token === undefined || (typeof token === 'string' && token.length <= MAX_PROGRESS_TOKEN) || (typeof token === 'number' && Number.isFinite(token))) return params;
  return null;
}

/** Characters of a string progress token (the SDKs send a number, or a short id). */
const MAX_PROGRESS_TOKEN = 256;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A tools/call whose params cannot be read: answered with JSON-RPC's invalid-params error, never forwarded. */
export class InvalidParams extends Error {
  constructor(
    readonly id: string | number,
    message: string,
  ) {
    super(message);
  }
}
