import { channel } from 'node:diagnostics_channel';

/**
 * Observability without log lines on the assessment path (docs/architecture.md): subscribers (metrics, tests) receive one
 * message per finished assessment. Publishing costs nothing when nobody listens.
 */
export interface AssessmentEvent {
  readonly kind: 'super-scan' | 'seo-scan' | 'recorded-scan' | 'monitor-run';
  readonly requestId: string;
  /** Origin only: a query string may carry someone's token. */
  readonly target: string;
  readonly score: number;
  readonly grade: string;
  readonly profile?: string;
  /** Checks that threw (reported as errored, not scored). */
  readonly erroredChecks: readonly string[];
}

export const assessmentChannel = channel('aduana:scanner:assessment');

export function publishAssessment(event: AssessmentEvent): void {
  if (assessmentChannel.hasSubscribers) assessmentChannel.publish(event);
}
