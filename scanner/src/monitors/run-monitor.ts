import { traceFrom } from '@aduana/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Profile } from '../checks/check.js';
import type { ScannerConfig } from '../config.js';
import { runRecordedAssessment, type RecordedAssessment } from '../history/run-recorded-assessment.js';
import { toScannerError } from '../plugins/error-handler.js';
import type { WebhookNotifier } from '../webhooks/webhook-notifier.js';
import { finishRun, type ClaimedRun } from './monitor-store.js';

/** What every run needs beside the app: the configuration, the webhook notifier and the service's clock. */
export interface RunContext {
  readonly config: ScannerConfig;
  readonly notifier: WebhookNotifier;
  readonly now: () => number;
}

/**
 * One claimed monitor run, scheduled or asked for: a recorded assessment in the monitor's organisation, the run's
 * outcome recorded and the lease released, then `monitor.score_changed` sent to the organisation's webhooks when the
 * score moved from the previous run's. Every run spends one assessment of a key's daily quota: the caller's when
 * asked for over HTTP, else the key that created the monitor, so a monitor never assesses a third party for free.
 * A run the quota refuses is recorded as skipped (nothing was fetched). A run asked for over HTTP rethrows a failure;
 * a scheduled one records it and returns undefined.
 */
export async function executeRun(
  app: FastifyInstance,
  { config, notifier, now }: RunContext,
  claimed: ClaimedRun,
  via?: { readonly request: FastifyRequest; readonly reply: FastifyReply; readonly keyId: string },
): Promise<RecordedAssessment | undefined> {
  const { monitor, run } = claimed;
  let recorded: RecordedAssessment | undefined;
  let failure: unknown;
  try {
    recorded = await runRecordedAssessment(app, config, {
      identity: { keyId: via?.keyId ?? monitor.keyId, orgId: monitor.orgId },
      url: monitor.url,
      profile: monitor.profile as Profile | 'auto',
      requestId: via?.request.id ?? run.id,
      countsAgainstQuota: true,
      ...(via === undefined ? {} : { via: { request: via.request, reply: via.reply } }),
      kind: 'monitor-run',
    });
  } catch (err) {
    failure = err;
  }
  const assessment = recorded?.assessment;
  const code = assessment === undefined ? toScannerError(failure).code : null;
  const previous = await finishRun(
    app.store,
    claimed,
    assessment === undefined
      ? { status: code === 'quota_exceeded' ? 'skipped' : 'failed', scanId: null, score: null, error: code }
      : { status: 'succeeded', scanId: assessment.scanId, score: assessment.globalScore, error: null },
    now(),
  );
  if (assessment !== undefined && previous !== null) {
    notifier.scoreChanged(monitor.orgId, {
      monitorId: monitor.id,
      url: monitor.url,
      scanId: assessment.scanId,
      previousScanId: previous.scanId,
      score: assessment.globalScore,
      previousScore: previous.score,
      grade: assessment.grade,
    }, via?.request.trace ?? traceFrom(undefined));
  }
  if (via !== undefined && recorded === undefined) throw failure;
  return recorded;
}
