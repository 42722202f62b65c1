import { collectText, walkText } from '../policy/input-text.js';
import { isBlockingAction } from '../policy/verdict.js';
import { RPC, rpcError, type Json } from './jsonrpc.js';
import type { McpCaller } from './tool-call-judge.js';
import type { ToolCallRecord } from './mcp-record.js';
import { RedactionCount } from '../policy/pii/entity-tally.js';

/** The requests whose results carry content the agent (and its model) will read: redacted and judged. */
const CONTENT_RESULTS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get', 'completion/complete']);

/** What governing one response did to it. */
export interface GovernedResult {
  /** The message to relay (the same object, rewritten, or an error that replaces it). */
  message: Json;
  changed: boolean;
  /** The output policy that refused the result (it was replaced by a JSON-RPC error), or null. */
  blockedBy: string | null;
}

/**
 * A response from the server on its way to the agent, given the method of the request it answers (null: unknown, as
 * for a response replayed on resumption, which is treated as content). `tools/list` loses the tools that tool_access
 * denies this agent; content results (a tool's output, a resource, a prompt) have their personal data redacted and
 * are judged by output content filters, a blocking one replacing the result with an error. A tools/call's record gets
 * the redaction count and the triggered output checks.
 */
export function governResult(caller: McpCaller, method: string | null, msg: Json, record: ToolCallRecord | null): GovernedResult {
  const result = msg['result'];
  if (result === null || typeof result !== 'object') return { message: msg, changed: false, blockedBy: null };
  const set = caller.set;
  if (method === 'tools/list') {
    const tools = (result as Json)['tools'];
    if (!set.hasToolAccess || !Array.isArray(tools)) return { message: msg, changed: false, blockedBy: null };
    const visible = (tools as Json[]).filter((t) => typeof t?.['name'] !== 'string' || set.toolVerdict(t['name'] as string, caller.server) === null);
    if (visible.length === tools.length) return { message: msg, changed: false, blockedBy: null };
    (result as Json)['tools'] = visible;
    return { message: msg, changed: true, blockedBy: null };
  }
  if (method !== null && !CONTENT_RESULTS.has(method)) return { message: msg, changed: false, blockedBy: null };
  let changed = false;
  const redactor = set.outputRedactor;
  if (redactor) {
    const tally = new RedactionCount(redactor);
    walkText(result, tally.redact);
    if (tally.count > 0) changed = true;
    if (record) {
      record.outputRedactions = tally.count;
      record.outputRedactionEntities = tally.entities;
    }
  }
  if (!set.hasOutputFilters) return { message: msg, changed, blockedBy: null };
  const triggered = set.evaluateOutput(collectText(result)).triggered;
  if (record) record.outputTriggered = triggered;
  const blocking = triggered.find((t) => isBlockingAction(t.action));
  if (!blocking) return { message: msg, changed, blockedBy: null };
  const id = msg['id'] as string | number;
  const data: Json = { verdict: 'DENIED', rule: blocking.policyId, trace_id: caller.traceId, policy: set.label };
  if (record) data['decision_id'] = record.decisionId;
  return { message: rpcError(id, RPC.refused, `result blocked by policy ${blocking.policyId}`, data), changed: true, blockedBy: blocking.policyId };
}

/**
 * A notification from the server (progress, a log message) reaches the agent's client too: its personal data is
 * redacted like a result's. True when it was rewritten.
 */
export function redactNotification(caller: McpCaller, msg: Json): boolean {
  const redactor = caller.set.outputRedactor;
  const params = msg['params'];
  if (!redactor || params === null || typeof params !== 'object') return false;
  let count = 0;
  walkText(params, (text) => {
    const r = redactor.redact(text);
    count += r.matches.length;
    return r.text;
  });
  return count > 0;
}
