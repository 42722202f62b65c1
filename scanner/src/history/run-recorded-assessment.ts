import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Assessment } from '../assessment/assessment.js';
import { assess } from '../assessment/assess.js';
import type { Profile } from '../checks/check.js';
import { judgingLimitsOf, type ScannerConfig } from '../config.js';
import type { KeyIdentity } from '../keys/key-store.js';
import { publishAssessment } from '../observability/channels.js';
import { assessForRequest, assessUnattended } from '../routes/assess-for-request.js';
import { checkTarget } from '../routes/target.js';
import { refuseBlockedDestination } from '../routes/vet-destination.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { recordAssessment } from './scan-history.js';

export interface RecordedRun {
  readonly identity: KeyIdentity;
  readonly url: string;
  readonly profile: Profile | 'auto';
  readonly requestId: string;
  /** True when the run spends the key's daily assessment quota (every KEY request and every monitor run). */
  readonly countsAgainstQuota: boolean;
  /** The HTTP exchange that asked for it, when there is one: then the per-address limit and its cancellation apply. */
  readonly via?: { readonly request: FastifyRequest; readonly reply: FastifyReply };
  readonly signal?: AbortSignal;
  /** Who ran it, for the assessment channel. */
  readonly kind: 'recorded-scan' | 'monitor-run';
  /** Reads the snapshot the assessment judged, while it is still held (a report's landing-page signals). */
  readonly onSnapshot?: (snapshot: Snapshot) => void;
}

/** A recorded assessment and its JSON text: the text is what the client is answered and what the history stores. */
export interface RecordedAssessment {
  readonly assessment: Assessment;
  readonly json: string;
}

/**
 * Runs one assessment and records it in the key's organisation's history; returns it with its scanId. The URL is
 * checked before the quota is spent (a malformed URL, or one the address guard refuses, costs nothing); the quota is
 * spent before the collection, so concurrent requests cannot overrun it. Reports and other KEY features reuse this:
 * whatever they render is then a recorded assessment with a scanId. The Assessment is serialised once, here: routes
 * answer that text (`sendJsonText`) rather than letting Fastify serialise the object a second time.
 */
export async function runRecordedAssessment(app: FastifyInstance, config: ScannerConfig, run: RecordedRun): Promise<RecordedAssessment> {
  await refuseBlockedDestination(app.destinationGuard, checkTarget(run.url, app.selfIdentity));
  if (run.countsAgainstQuota) await app.quota.take(run.identity.keyId, 'assessments');
  const limits = judgingLimitsOf(config);
  const judge = (target: URL, snapshot: Parameters<typeof assess>[0]): Assessment => {
    const { assessment, results } = assess(snapshot, { profile: run.profile, requestId: run.requestId, limits });
    run.onSnapshot?.(snapshot);
    publishAssessment({
      kind: run.kind,
      requestId: run.requestId,
      target: target.origin,
      score: assessment.globalScore,
      grade: assessment.grade,
      profile: assessment.profile,
      erroredChecks: results.filter((r) => r.status === 'error').map((r) => r.check.id),
    });
    return assessment;
  };
  const assessment = run.via === undefined ? await assessUnattended(app, run.url, judge, run.signal) : await assessForRequest(app, run.via.request, run.via.reply, run.url, judge);
  const json = JSON.stringify(assessment);
  // Queued, not awaited: history reads wait for pending commits (scan-history.ts). A failed write is logged.
  recordAssessment(app.store, run.identity.orgId, assessment, json).catch((err: unknown) => app.log.error({ err, scanId: assessment.scanId }, 'recording an assessment failed'));
  return { assessment, json };
}
