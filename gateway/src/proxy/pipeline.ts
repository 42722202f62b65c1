import { performance } from 'node:perf_hooks';
import type { Logger } from '@aduana/shared';
import type { AccessControl } from '../auth/authenticate.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import { CLIENT_ABORTED } from '../http/read-body.js';
import type { RequestContext } from '../http/request-context.js';
import { HANDLED, type HttpServer } from '../http/server.js';
import type { EvalPool } from '../runtime/eval-pool.js';
import type { BucketSeries } from '../telemetry/bucket-histogram.js';
import type { TenantRuntimes } from '../runtime/tenant-runtime.js';
import type { Endpoint } from './endpoints.js';
import type { ToolCallValidator } from './output/tool-call-validator.js';
import type { PriceTable } from './pricing/price-table.js';
import { indexProxyCall } from './audit-record.js';
import { answerProxyFailure } from './proxy-answer.js';
import { ProxyContext } from './proxy-context.js';
import { authenticateStage } from './stages/authenticate.js';
import { awaitAdmissionStep } from './stages/await-admission.js';
import { evaluatePoliciesStage } from './stages/evaluate-policies.js';
import { forwardStep } from './stages/forward.js';
import { parseIntentStage } from './stages/parse-intent.js';
import { passthroughStep } from './stages/passthrough.js';
import { preflightStage } from './stages/preflight.js';
import { readBodyStep } from './stages/read-body.js';
import { recordAfterAnswer, recordStep } from './stages/record.js';
import { redactInputStage } from './stages/redact-input.js';
import { requestUsageStage } from './stages/request-usage.js';
import { checkOutputStage, meterUsageStage, redactOutputStage } from './stages/response-stages.js';
import type { Step } from './stages/stage.js';
import { watchAbortStep } from './stages/watch-abort.js';
import { overWholeAnswer, readAnswerStep, sealAnswerStep } from './stages/whole-answer.js';
import { writeAnswerStep } from './stages/write-answer.js';
import { relayStreamStep } from './stream/relay-stream.js';
import type { UpstreamClient } from './upstream/upstream-client.js';

export interface PipelineDeps {
  server: HttpServer;
  /** The same authorization as every authenticated route's. */
  access: AccessControl;
  runtimes: TenantRuntimes;
  agents: AgentRegistry;
  prices: PriceTable;
  tools: ToolCallValidator;
  upstream: UpstreamClient;
  audit: AuditTrail;
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
  /** PROXY_STEP_TIMINGS: where each step's time goes (a histogram with one series per label); null: steps are not timed. */
  stepTimes: { series(label: string): BucketSeries } | null;
}

/** One step's two series: the time it ran until it returned, and the time its promise took. */
interface StepSeries {
  ran: BucketSeries;
  waited: BucketSeries;
}

/**
 * The governance proxy's path, every step of it in order, declared once. Each step continues by returning and answers
 * directly by throwing (a local reply: nothing after it runs, and before `forward` the upstream is never contacted);
 * the error is then answered with the verdict headers and the call recorded. Response stages are the request stages'
 * counterparts and run in reverse order (Envoy's encoder order): usage is metered first, then the answer is redacted,
 * then output policies judge what the client would see. A stream takes the same response steps per event, inside
 * `relay-stream`; the whole-answer steps then have nothing to do.
 */
export function governedSteps(d: PipelineDeps): readonly Step[] {
  const responseInDeclarationOrder = [checkOutputStage(d.tools), redactOutputStage(), meterUsageStage(d.runtimes, d.prices)];
  return Object.freeze([
    // Authentication, the agent and the plan limit come from the headers, before any body byte is read.
    authenticateStage(d.access, d.runtimes, d.agents),
    readBodyStep(d.server, d.maxBodyBytes),
    ...(d.sharedLimits ? [awaitAdmissionStep()] : []),
    watchAbortStep(),
    parseIntentStage(),
    preflightStage(d.maxModelLength),
    evaluatePoliciesStage(d.runtimes, d.evalPool, d.evalInlineMaxChars),
    redactInputStage(d.runtimes),
    requestUsageStage(),
    forwardStep(d.upstream),
    relayStreamStep(d.server, d.runtimes, d.prices),
    readAnswerStep(d.maxAnswerBytes),
    ...responseInDeclarationOrder.reverse().map(overWholeAnswer),
    sealAnswerStep(),
    // A whole answer is recorded before it is written: an entry the ledger refuses withholds the answer.
    recordStep(d.audit, d.logger),
    writeAnswerStep(d.server),
  ]);
}

/** The models passthrough: authenticated, forwarded and recorded, not judged (it has no body to read). */
export function passthroughSteps(d: PipelineDeps): readonly Step[] {
  return Object.freeze([
    authenticateStage(d.access, d.runtimes, d.agents),
    ...(d.sharedLimits ? [awaitAdmissionStep()] : []),
    watchAbortStep(),
    passthroughStep(),
    forwardStep(d.upstream),
    readAnswerStep(d.maxAnswerBytes),
    sealAnswerStep(),
    recordStep(d.audit, d.logger),
    writeAnswerStep(d.server),
  ]);
}

/**
 * Runs one proxied call through its endpoint's steps: synchronous steps without an await, a step that returns a
 * promise is waited for. Whatever happened, the call is answered and recorded once.
 */
export class ProxyPipeline {
  readonly #governed: readonly Step[];
  readonly #passthrough: readonly Step[];
  readonly #governedTimes: readonly StepSeries[] | null;
  readonly #passthroughTimes: readonly StepSeries[] | null;
  readonly #d: PipelineDeps;

  constructor(d: PipelineDeps) {
    this.#d = d;
    this.#governed = governedSteps(d);
    this.#passthrough = passthroughSteps(d);
    const times = d.stepTimes;
    const seriesOf = (steps: readonly Step[]) => (times ? steps.map((s) => ({ ran: times.series(s.name), waited: times.series(`${s.name}.wait`) })) : null);
    this.#governedTimes = seriesOf(this.#governed);
    this.#passthroughTimes = seriesOf(this.#passthrough);
  }

  async handle(http: RequestContext, endpoint: Endpoint): Promise<typeof HANDLED> {
    const c = new ProxyContext(http, endpoint);
    const steps = endpoint.governed ? this.#governed : this.#passthrough;
    const times = endpoint.governed ? this.#governedTimes : this.#passthroughTimes;
    try {
      if (times !== null) await runTimed(c, steps, times);
      else {
        for (let i = 0; i < steps.length; i++) {
          const waiting = (steps[i] as Step).run(c);
          if (waiting) await waiting;
        }
      }
    } catch (err) {
      if (err !== CLIENT_ABORTED) answerProxyFailure(this.#d.server, this.#d.logger, c, err);
    } finally {
      if (!c.recorded) recordAfterAnswer(c, this.#d.audit, this.#d.logger);
      // A whole answer's decision index and observers: after it was written, in the same turn.
      else indexProxyCall(c, this.#d.audit);
    }
    return HANDLED;
  }
}

/** The steps as `handle` runs them, each one's time observed (PROXY_STEP_TIMINGS); a step that throws is not. */
async function runTimed(c: ProxyContext, steps: readonly Step[], times: readonly StepSeries[]): Promise<void> {
  let t = performance.now();
  for (let i = 0; i < steps.length; i++) {
    const waiting = (steps[i] as Step).run(c);
    const ran = performance.now();
    const series = times[i] as StepSeries;
    series.ran.observe((ran - t) / 1000);
    t = ran;
    if (waiting) {
      await waiting;
      t = performance.now();
      series.waited.observe((t - ran) / 1000);
    }
  }
}
