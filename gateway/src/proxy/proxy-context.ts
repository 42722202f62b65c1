import type { Principal } from '../identity/auth/principal.js';
import type { AgentState } from '../agents/agent-state.js';
import type { DecisionRecord } from '../governance/decisions/decision-store.js';
import type { RequestContext } from '../http/request-context.js';
import type { PolicySet } from '../policy/compile-policy-set.js';
import type { MediaSlots } from '../policy/input-text.js';
import type { Evaluation, Triggered } from '../policy/evaluation.js';
import type { Verdict } from '../policy/policy-record.js';
import type { AnswerPiece } from './answer/answer-piece.js';
import type { OutputChannel } from './answer/redact-output.js';
import type { Endpoint } from './endpoints.js';
import { PROVIDER_ORGANIZATION, PROVIDER_PROJECT, SESSION_ID } from './proxy-headers.js';
import type { UpstreamResponse } from './upstream/upstream-client.js';
import type { RouteRecord } from './routing/router.js';
import type { EntityTally } from '../policy/pii/entity-tally.js';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** How the call ended, for the ledger. */
export type Outcome = 'completed' | 'blocked' | 'refused' | 'upstream_error' | 'upstream_unavailable' | 'client_aborted' | 'upstream_aborted' | 'error';

/**
 * One proxied call as it moves through the stages. Every field is declared and initialised here (one hidden class);
 * stages read and write these, nothing else.
 */
export class ProxyContext {
  readonly http: RequestContext;
  readonly endpoint: Endpoint;
  principal: Principal | null = null;
  /** The agent the call acts as (x-svc-agent-id, a bound token's agent or SIDECAR_AGENT_ID) in the registry, once authenticated. */
  agent: AgentState | null = null;
  decisionId = '';
  /** Parsed request body (governed endpoints). */
  request: Record<string, unknown> | null = null;
  /** Where the request's schema puts media (found once, when it is parsed; redaction keeps the same objects). */
  requestMedia: MediaSlots = null;
  /** The upstream path when the endpoint's depends on the request (Azure's deployment); '' = the endpoint's own. */
  upstreamPath = '';
  /** Bytes sent upstream: the judged (and redacted) request object, re-serialised once; never the client's raw bytes. */
  upstreamBody: Buffer | null = null;
  /** The model the call names: the body's, or the path's (Gemini; Azure's deployment when the body names none). */
  model = '';
  /** Azure: the deployment the path names, which Azure serves (judged by model_access beside `model`); '' elsewhere. */
  deployment = '';
  stream = false;
  /** The client asked for usage in the stream itself (else the usage chunk we ask for is not relayed). */
  clientWantsStreamUsage = false;
  /** The request's text (messages, prompt, input), for policies and the hallucination shield. */
  inputText = '';
  /** x-svc-session-id as sent (checked by preflight, then kept in `sessionId`). */
  readonly sessionHeader: string;
  sessionId = '';
  /**
   * The client's own provider key as the value of the provider's key header ('' = the sidecar's), from the header its
   * wire format names (x-forwarded-authorization for OpenAI, x-forwarded-api-key for the others).
   */
  readonly forwardedKey: string;
  /** Headers the provider needs whoever's key goes out (anthropic-version, anthropic-beta). */
  readonly passHeaders: Readonly<Record<string, string>>;
  /** Provider routing headers the proxy passes on (OpenAI-Organization, OpenAI-Project). */
  readonly providerOrganization: string;
  readonly providerProject: string;
  policySet: PolicySet | null = null;
  evaluation: Evaluation | null = null;
  /** Output-side triggers (content filters, hallucination shield). */
  outputTriggered: Triggered[] = [];
  verdict: Verdict = 'ALLOW';
  rule = '';
  riskScore = 0;
  inputRedactions = 0;
  outputRedactions = 0;
  /** Redactions per entity, once any (output: a whole answer's; a streamed answer's go uncounted, as in outputRedactions). */
  inputRedactionEntities: EntityTally | null = null;
  outputRedactionEntities: EntityTally | null = null;
  /** The upstream's answer once its head arrived (forward step). */
  upstream: UpstreamResponse | null = null;
  upstreamStatus = 0;
  /** The answer was relayed as a stream: the whole-answer stages have nothing to do. */
  streamed = false;
  /** A whole answer: the bytes the client gets, and the one piece the response stages read (successful JSON only). */
  answerBytes: Buffer | null = null;
  answer: AnswerPiece | null = null;
  /** The answer's text as the client reads it, for output checks; bounded. */
  answerText = '';
  /** A stream's channels (choices), each with the redactor that holds back a possible entity's start. */
  outputChannels: Map<number, OutputChannel> | null = null;
  /** The end of a stream's text so far, that output filters see again with the next piece (patterns across events). */
  outputWindow = '';
  usage: Usage | null = null;
  costBrl = 0;
  /** False when the model is in no price table: its cost is 0 and it is reported apart (never priced as another). */
  priced = true;
  /** SHA-256 hex of the bytes relayed to the client. */
  outputHash = '';
  outcome: Outcome = 'completed';
  /** The status line went out (a stream started): errors can only be told in-band now. */
  headersSent = false;
  /** The call was refused before forwarding (auth, validation, size): x-svc-verdict is DENIED. */
  deniedBeforeForward = false;
  /** Milliseconds spent in governance (never upstream time). */
  governanceMs = 0;
  /**
   * Parts of it, for the decision page's latency by stage (docs/console.md): everything before the upstream request
   * was sent, and within that the policy evaluation and the input redaction. Set from clock reads the stages make anyway.
   */
  beforeUpstreamMs = 0;
  policiesMs = 0;
  redactionMs = 0;
  /** performance.now() when the upstream request was sent / when its answer was complete. */
  forwardedAt = 0;
  upstreamDoneAt = 0;
  /** The input was judged, and redacted, by the evaluation worker: the inline redact-input stage has nothing to do. */
  inputJudgedInWorker = false;
  /** The call's chain entry: still to make, or made (or attempted: never twice). */
  record: 'pending' | 'made' = 'pending';
  /** The chain entry is queued; its decision index and observers wait for the answer to go out. */
  indexed: DecisionRecord | null = null;
  /** A routed call's model asked for, target that answered and attempts (docs/routing.md); null: the default route. */
  route: RouteRecord | null = null;
  /** Aborts the upstream request once it is sent (client gone, answer refused mid-stream). */
  cancelUpstream: (() => void) | null = null;

  constructor(http: RequestContext, endpoint: Endpoint) {
    this.http = http;
    this.endpoint = endpoint;
    // The proxy routes declare PROXY_HEADERS: the values are there, in that order.
    const h = http.headerValues;
    this.sessionHeader = h[SESSION_ID] ?? '';
    // Where the client's own key arrives, and what the provider needs whoever's key goes out: the format's.
    this.forwardedKey = h[endpoint.wire.forwardedKeyAt] ?? '';
    this.passHeaders = endpoint.wire.passHeaders(h);
    this.providerOrganization = h[PROVIDER_ORGANIZATION] ?? '';
    this.providerProject = h[PROVIDER_PROJECT] ?? '';
  }
}
