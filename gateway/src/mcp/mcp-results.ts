import { collectText, walkText } from '../policy/input-text.js';
import { mcpMedia } from './mcp-media.js';
import { isHeld, mostSevere, verdictOf, type Verdict } from '../policy/verdict.js';
import { RPC, rpcError, type Json, type RequestId } from './jsonrpc.js';
import { toolSet, type McpCaller } from './tool-call-judge.js';
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
 * denies this agent; content results (a tool's output, a resource, a prompt) and every error (its `message` and `data`
 * reach the agent's model as surely as a result does) have their personal data redacted and are judged by output
 * content filters, a blocking one replacing the answer with the gateway's own error. A tools/call's record gets the
 * redaction count and the triggered output checks.
 */
export function governResult(caller: McpCaller, method: string | null, msg: Json, record: ToolCallRecord | null): GovernedResult {
  if ('error' in msg) return governAnswer(caller, msg, 'error', record);
  const result = msg['result'];
  if (result === null || typeof result !== 'object') {
    // A result that is not an object is no result of the protocol's: judged as text all the same, never relayed unread.
    return method === 'tools/list' || method === null || CONTENT_RESULTS.has(method) ? governAnswer(caller, msg, 'result', record) : { message: msg, changed: false, blockedBy: null };
  }
  const set = caller.set;
  if (method === 'tools/list') {
    const tools = (result as Json)['tools'];
    if ((!set.hasToolAccess && !set.aimed) || !Array.isArray(tools)) return { message: msg, changed: false, blockedBy: null };
    // Each tool listed is judged as a call of it would be: by the policies whose scope its name matches.
    const visible = (tools as Json[]).filter((t) => typeof t?.['name'] !== 'string' || toolSet(caller, t['name'] as string).toolVerdict(t['name'] as string, caller.server) === null);
    if (visible.length === tools.length) return { message: msg, changed: false, blockedBy: null };
    (result as Json)['tools'] = visible;
    return { message: msg, changed: true, blockedBy: null };
  }
  if (method !== null && !CONTENT_RESULTS.has(method)) return { message: msg, changed: false, blockedBy: null };
  return governAnswer(caller, msg, 'result', record);
}

function governAnswer(caller: McpCaller, msg: Json, member: 'result' | 'error', record: ToolCallRecord | null): GovernedResult {
  const judged = governMember(caller, msg, member, record);
  if (judged.blockedBy === null) return { message: msg, changed: judged.changed, blockedBy: null };
  const set = caller.set;
  // A held verdict is recorded as held for review, as the proxy records a held answer; the agent gets no result either way.
  const held = isHeld(judged.verdict);
  const data: Json = { verdict: held ? judged.verdict : 'DENIED', rule: judged.blockedBy, trace_id: caller.traceId, policy: set.label };
  if (record) data['decision_id'] = record.decisionId;
  const id = (msg['id'] ?? null) as RequestId | null;
  const what = member === 'result' ? 'result' : "server's error";
  const review = held && record ? ` (${judged.verdict}: decision ${record.decisionId} awaits review)` : '';
  return { message: rpcError(id, RPC.refused, `${what} blocked by policy ${judged.blockedBy}${review}`, data), changed: true, blockedBy: judged.blockedBy };
}

/** What redaction and the output filters made of one member of a message. */
export interface GovernedMember {
  /** Rewritten in place (redacted). */
  changed: boolean;
  /** The blocking output policy, or null. */
  blockedBy: string | null;
  /** The most severe verdict of what triggered (ALLOW when nothing blocks). */
  verdict: Verdict;
}

const UNTOUCHED: GovernedMember = Object.freeze({ changed: false, blockedBy: null, verdict: 'ALLOW' });

/**
 * One member of a message from the server (a response's `result` or `error`, a notification's or a server request's
 * `params`, or anything else it sent, held under a key), whatever its JSON type: its personal data redacted in place
 * and its text judged by the output content filters. `record` (a tools/call's) gets the counts and triggers.
 */
export function governMember(caller: McpCaller, holder: Json, member: string, record: ToolCallRecord | null = null): GovernedMember {
  const value = holder[member];
  if (value === null || (typeof value !== 'object' && typeof value !== 'string')) return UNTOUCHED;
  // A tool's result is judged by the policies that judged its call.
  const set = record === null ? caller.set : toolSet(caller, record.tool);
  if (set.outputRedactor === null && !set.hasOutputFilters) return UNTOUCHED;
  // A bare string is walked inside a one-element array, so it is read like a string anywhere else.
  const root: object = typeof value === 'string' ? [value] : value;
  const media = mcpMedia(root);
  let changed = false;
  const redactor = set.outputRedactor;
  if (redactor) {
    const tally = new RedactionCount(redactor);
    walkText(root, tally.redact, undefined, media);
    if (tally.count > 0) {
      changed = true;
      if (typeof value === 'string') holder[member] = (root as string[])[0];
    }
    if (record) {
      record.outputRedactions = tally.count;
      record.outputRedactionEntities = tally.entities;
    }
  }
  if (!set.hasOutputFilters) return changed ? { changed, blockedBy: null, verdict: 'ALLOW' } : UNTOUCHED;
  const triggered = set.evaluateOutput(collectText(root, undefined, media)).triggered;
  if (record) record.outputTriggered = triggered;
  const at = mostSevere(triggered, 'ALLOW');
  if (at < 0) return { changed, blockedBy: null, verdict: 'ALLOW' };
  const blocking = triggered[at]!;
  return { changed, blockedBy: blocking.policyId, verdict: verdictOf(blocking.action) };
}
