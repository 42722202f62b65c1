import { performance } from 'node:perf_hooks';
import type { Logger } from '@aduana/shared';
import type { AuditTrail } from '../governance/audit-trail.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import { CLIENT_ABORTED } from '../http/read-body.js';
import type { RequestContext } from '../http/request-context.js';
import type { EvalPool } from '../policy/runtime/eval-pool.js';
import type { BucketSeries } from '../telemetry/bucket-histogram.js';
import type { TenantRuntimes } from '../policy/runtime/tenant-runtime.js';
import { checkOutputStage } from './answer/check-output.js';
import { checkToolsStage } from './answer/check-tools.js';
import { meterUsageStage } from './answer/meter-usage.js';
import { redactOutputStage } from './answer/redact-output.js';
import { relayStreamStage } from './answer/relay-stream.js';
import { ResponseStages } from './answer/response-stage.js';
import { overWholeAnswer, readAnswerStage, sealAnswerStage } from './answer/whole-answer.js';
import { writeAnswerStage } from './answer/write-answer.js';
import { CallRecorder, type CallSampler } from './call-record.js';
import type { Endpoint, Provider } from './endpoints.js';
import type { ToolCallValidator } from './output/tool-call-validator.js';
import type { PriceTable } from './pricing/price-table.js';
import { answerProxyFailure } from './proxy-answer.js';
import { ProxyContext } from './proxy-context.js';
import type { ProxyEdge } from './proxy-edge.js';
import { authenticateStage } from './stages/authenticate.js';
import { awaitAdmissionStage } from './stages/await-admission.js';
import { evaluatePoliciesStage } from './stages/evaluate-policies.js';
import { forwardStage } from './stages/forward.js';
import { parseIntentStage } from './stages/parse-intent.js';
import { passthroughStage } from './stages/passthrough.js';
import { preflightStage } from './stages/preflight.js';
import { readBodyStage } from './stages/read-body.js';
import { redactInputStage } from './stages/redact-input.js';
import { requestUsageStage } from './stages/request-usage.js';
import type { Stage } from './stages/stage.js';
import { watchAbortStage } from './stages/watch-abort.js';
import type { UpstreamClient } from './upstream/upstream-client.js';
import type { Router } from './routing/router.js';
import { checkStoredStage, forgetDeletedStage, rememberStoredStage } from './stored/stored-response-stages.js';
import type { StoredPrompts } from './stored/stored-prompts.js';
import type { StoredResponses } from './stored/stored-responses.js';

export interface PipelineDeps {
  /** How the proxy reads bodies and writes answers: the HTTP edge's, handed over when it mounts the proxy's routes. */
  edge: ProxyEdge;
  runtimes: TenantRuntimes;
  agents: AgentRegistry;
  prices: PriceTable;
  tools: ToolCallValidator;
  /** One upstream per provider (base URL, key, how the key is sent): the default route. */
  upstreams: Readonly<Record<Provider, UpstreamClient | null>>;
  /** Tenants' routes (docs/routing.md); absent or null: every call takes the default route. */
  router?: Router | null;
  audit: AuditTrail;
  /** Which tenant made each response, and each item, the provider stores (OpenAI's Responses API). */
  stored: StoredResponses;
  /** The stored prompts each tenant may name (OPENAI_PROMPTS). */
  prompts: StoredPrompts;
  logger: Logger;
  /** Longest `model` accepted (it is recorded in the ledger). */
  maxModelLength: number;
  /** Where inputs longer than `evalInlineMaxChars` are judged. */
  evalPool: EvalPool;
  evalInlineMaxChars: number;
  maxBodyBytes: number;
  /** Largest non-streamed answer accepted from the upstream (502 past it). */
  maxAnswerBytes: number;
  /** Plan limits counted on Redis: the admission may be pending after authentication, and is waited for. */
  sharedLimits: boolean;
  /** The sampled request log (null: no REQUEST_LOG_KEY, or a test without one). */
  requestLog?: CallSampler | null;
  /** PROXY_STEP_TIMINGS: where each stage's time goes (a histogram with one series per label); null: stages are not timed. */
  stepTimes: { series(label: string): BucketSeries } | null;
}

/** One stage's two series: the time it ran until it returned, and the time its promise took. */
interface StageSeries {
  ran: BucketSeries;
  waited: BucketSeries;
}

/** The response stages, in the order they are declared: they run in reverse (Envoy's encoder order). */
function responseStages(d: PipelineDeps): ResponseStages {
  const declared = [checkToolsStage(), checkOutputStage(d.tools), redactOutputStage(), meterUsageStage(d.runtimes.limits, d.prices), rememberStoredStage(d.stored)];
  return new ResponseStages(declared.reverse());
}

/**
 * The governance proxy's path, every stage of it in order, declared once. Each stage continues by returning and answers
 * directly by throwing (a local reply: nothing after it runs, and before `forward` the upstream is never contacted);
 * the error is then answered with the verdict headers and the call recorded. Response stages are the request stages'
 * counterparts and run in reverse order: usage is metered first, then the answer is redacted, then output policies
 * judge what the client would see, and tool_access the tool calls it names. They see the answer in pieces: a whole
 * answer is one piece, run through each of them here; a stream's events are, one by one, inside `relay-stream`, and
 * the whole-answer stages then have nothing to do.
 */
export function governedStages(d: PipelineDeps, recorder: CallRecorder): readonly Stage[] {
  const answer = responseStages(d);
  return Object.freeze([
    // Authentication, the agent and the plan limit come from the headers, before any body byte is read.
    authenticateStage(d.runtimes.sets, d.agents),
    readBodyStage(d.edge, d.maxBodyBytes),
    ...(d.sharedLimits ? [awaitAdmissionStage()] : []),
    watchAbortStage(),
    parseIntentStage(),
    preflightStage(d.maxModelLength),
    checkStoredStage(d.stored, d.prompts),
    evaluatePoliciesStage(d.runtimes.limits, d.evalPool, d.evalInlineMaxChars),
    redactInputStage(d.runtimes.limits),
    requestUsageStage(),
    forwardStage(d.upstreams, d.router ?? null),
    relayStreamStage(d.edge, answer),
    readAnswerStage(d.maxAnswerBytes),
    ...answer.stages.map(overWholeAnswer),
    sealAnswerStage(),
    // A whole answer's entry is handed to the ledger before it is written: one the ledger refuses withholds the answer.
    recorder.stage(),
    writeAnswerStage(d.edge),
  ]);
}

/**
 * The passthroughs (models; a stored response read, listed or deleted): authenticated, forwarded and recorded, not
 * judged (they have no body to read). A stored response is the caller's tenant's only, and its texts are redacted as
 * an answer's.
 */
export function passthroughStages(d: PipelineDeps, recorder: CallRecorder): readonly Stage[] {
  return Object.freeze([
    authenticateStage(d.runtimes.sets, d.agents),
    ...(d.sharedLimits ? [awaitAdmissionStage()] : []),
    watchAbortStage(),
    passthroughStage(),
    checkStoredStage(d.stored, d.prompts),
    forwardStage(d.upstreams),
    readAnswerStage(d.maxAnswerBytes),
    // The input items a stored response lists are the tenant's to name again, as its output items are.
    overWholeAnswer(rememberStoredStage(d.stored)),
    overWholeAnswer(redactOutputStage()),
    forgetDeletedStage(d.stored),
    sealAnswerStage(),
    recorder.stage(),
    writeAnswerStage(d.edge),
  ]);
}

/**
 * Runs one proxied call through its endpoint's stages: synchronous stages without an await, a stage that returns a
 * promise is waited for. Whatever happened, the call is answered and recorded once.
 */
export class ProxyPipeline {
  readonly #governed: readonly Stage[];
  readonly #passthrough: readonly Stage[];
  readonly #governedTimes: readonly StageSeries[] | null;
  readonly #passthroughTimes: readonly StageSeries[] | null;
  readonly #recorder: CallRecorder;
  readonly #d: PipelineDeps;

  constructor(d: PipelineDeps) {
    this.#d = d;
    this.#recorder = new CallRecorder(d.audit, d.logger, d.requestLog ?? null);
    this.#governed = governedStages(d, this.#recorder);
    this.#passthrough = passthroughStages(d, this.#recorder);
    const times = d.stepTimes;
    const seriesOf = (stages: readonly Stage[]) => (times ? stages.map((s) => ({ ran: times.series(s.name), waited: times.series(`${s.name}.wait`) })) : null);
    this.#governedTimes = seriesOf(this.#governed);
    this.#passthroughTimes = seriesOf(this.#passthrough);
  }

  /** Resolves once the call was answered and its record handed over; never rejects. */
  async handle(http: RequestContext, endpoint: Endpoint): Promise<void> {
    const c = new ProxyContext(http, endpoint);
    const stages = endpoint.governed ? this.#governed : this.#passthrough;
    const times = endpoint.governed ? this.#governedTimes : this.#passthroughTimes;
    try {
      if (times !== null) await runTimed(c, stages, times);
      else {
        for (let i = 0; i < stages.length; i++) {
          const waiting = (stages[i] as Stage).run(c);
          if (waiting) await waiting;
        }
      }
    } catch (err) {
      if (err !== CLIENT_ABORTED) answerProxyFailure(this.#d.edge, this.#d.logger, c, err);
    } finally {
      // After the answer was written, in the same turn: the entry when not made yet, the decision index, observers.
      this.#recorder.afterAnswer(c);
    }
  }
}

/** The stages as `handle` runs them, each one's time observed (PROXY_STEP_TIMINGS); a stage that throws is not. */
async function runTimed(c: ProxyContext, stages: readonly Stage[], times: readonly StageSeries[]): Promise<void> {
  let t = performance.now();
  for (let i = 0; i < stages.length; i++) {
    const waiting = (stages[i] as Stage).run(c);
    const ran = performance.now();
    const series = times[i] as StageSeries;
    series.ran.observe((ran - t) / 1000);
    t = ran;
    if (waiting) {
      await waiting;
      t = performance.now();
      series.waited.observe((t - ran) / 1000);
    }
  }
}
