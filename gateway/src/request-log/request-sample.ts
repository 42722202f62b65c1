import type { ToolCallRecord } from '../mcp/mcp-record.js';
import type { ProxyContext } from '../proxy/proxy-context.js';

/** Each stored text is cut at this many bytes (UTF-8) and marked truncated. */
export const SAMPLE_TEXT_CAP = 64 * 1024;

/** The endpoint a sampled MCP tool call names (its ledger event type). */
export const MCP_TOOL_CALL_ENDPOINT = 'mcp.tools.call';

/**
 * A sampled call's texts, as kept (sealed) and shown on its decision page. Only ever redacted text. A proxied call's
 * `endpoint` is its proxy endpoint; an MCP tool call's is `mcp.tools.call`, with its `server` and `tool` (absent from
 * proxied calls' samples, and from every sample taken before MCP calls were sampled).
 */
export interface RequestSample {
  readonly endpoint: string;
  readonly server?: string;
  readonly tool?: string;
  readonly stream: boolean;
  readonly sampled_at: string;
  /**
   * The request as forwarded upstream, after input redaction (an MCP tool call's: its arguments as JSON); null when
   * nothing was forwarded (refused before).
   */
  readonly request: string | null;
  readonly request_truncated: boolean;
  /**
   * The answer as the agent got it, after output redaction: a whole answer's body, a stream's text, an MCP tool call's
   * result as JSON. Null when the answer was the gateway's own (a refusal, an error), an output policy cut it, or the
   * output checks did not read it (an upstream error, a body that is not JSON, an MCP server's error): only text that
   * passed output redaction is kept.
   */
  readonly answer: string | null;
  readonly answer_truncated: boolean;
}

function capped(bytes: Buffer | null): { text: string | null; truncated: boolean } {
  if (bytes === null) return { text: null, truncated: false };
  if (bytes.length <= SAMPLE_TEXT_CAP) return { text: bytes.toString('utf8'), truncated: false };
  return { text: bytes.subarray(0, SAMPLE_TEXT_CAP).toString('utf8'), truncated: true };
}

/**
 * The call's redacted texts, read once it was answered: `upstreamBody` is the request object re-serialised after
 * redaction (what the upstream got); a whole answer's bytes are those sealed for the client (only once sealed: a
 * refused answer never is), a stream's text is what its events carried after redaction (proxy/answer/redact-output.ts).
 */
export function sampleOf(c: ProxyContext, at: string): RequestSample {
  const request = capped(c.upstreamBody);
  let answerBytes: Buffer | null = null;
  if (c.outcome !== 'blocked') {
    if (c.streamed) answerBytes = Buffer.from(c.answerText, 'utf8');
    // Only an answer the output checks read (a JSON answer of 2xx): any other body never passed output redaction.
    else if (c.outputHash !== '' && c.answerBytes !== null && c.answer !== null) answerBytes = c.answerBytes;
  }
  const answer = capped(answerBytes);
  return {
    endpoint: c.endpoint.kind,
    stream: c.streamed,
    sampled_at: at,
    request: request.text,
    request_truncated: request.truncated,
    answer: answer.text,
    answer_truncated: answer.truncated,
  };
}

/**
 * A recorded tools/call's sample: its arguments as sent to the MCP server (after input redaction) and its result as
 * relayed to the agent (after output redaction), each the JSON text of the object the gateway sent; either null when
 * the draft holds none (mcp/mcp-record.ts says when).
 */
export function toolCallSampleOf(r: ToolCallRecord, at: string): RequestSample {
  const s = r.sample;
  const request = capped(s?.arguments ? Buffer.from(JSON.stringify(s.arguments), 'utf8') : null);
  const answer = capped(s?.result ? Buffer.from(JSON.stringify(s.result), 'utf8') : null);
  return {
    endpoint: MCP_TOOL_CALL_ENDPOINT,
    server: r.server,
    tool: r.tool,
    stream: s?.streamed ?? false,
    sampled_at: at,
    request: request.text,
    request_truncated: request.truncated,
    answer: answer.text,
    answer_truncated: answer.truncated,
  };
}
