import { formatTraceparent, uuid, type NetGuard, type SecretBox, type TraceContext } from '@aduana/shared';
import type { ScannerStore } from '../storage/scanner-store.js';
import { deliverWebhook } from './deliver-webhook.js';
import { orgWebhooks, recordAttempt } from './webhook-store.js';

/** What a monitor run reports when its score moved (docs/scanner.md, "Webhooks"). */
export interface ScoreChange {
  readonly monitorId: string;
  readonly url: string;
  readonly scanId: string;
  readonly previousScanId: string | null;
  readonly score: number;
  readonly previousScore: number;
  readonly grade: string;
}

export const SCORE_CHANGED = 'monitor.score_changed';

export interface NotifierSettings {
  readonly store: ScannerStore;
  readonly box: SecretBox | undefined;
  readonly guard: NetGuard;
  readonly timeoutMs: number;
  readonly retryDelaysMs: readonly [number, number];
  readonly userAgent: string;
}

/**
 * Sends `monitor.score_changed` to each active webhook of the organisation whose minScoreDelta the change reaches
 * (|score − previous| ≥ minScoreDelta). Deliveries run beside the monitor run, never inside it; `close` stops
 * pending retries and waits for attempts in flight, so nothing writes to the store after it closes.
 */
export class WebhookNotifier {
  readonly #settings: NotifierSettings;
  readonly #stopping = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(settings: NotifierSettings) {
    this.#settings = settings;
  }

  /** `trace`: the run's trace (the run-now request's, or a new one for a scheduled run), sent as `traceparent`. */
  scoreChanged(orgId: string, change: ScoreChange, trace: TraceContext): void {
    const traceparent = formatTraceparent(trace);
    const delta = Math.abs(change.score - change.previousScore);
    const { store, box } = this.#settings;
    for (const hook of orgWebhooks(store, orgId)) {
      if (!hook.active || delta < hook.minScoreDelta) continue;
      const deliveryId = uuid();
      const body = JSON.stringify({ id: deliveryId, event: SCORE_CHANGED, createdAt: new Date().toISOString(), data: { ...change, delta: change.score - change.previousScore } });
      const work = (async () => {
        if (box === undefined) {
          // Secrets cannot be opened without SCANNER_SECRET_KEY: the attempt is recorded, nothing is sent unsigned.
          await recordAttempt(store, { id: `${deliveryId}.1`, webhookId: hook.id, deliveryId, event: SCORE_CHANGED, attempt: 1, timestamp: new Date().toISOString(), status: null, error: 'signing unavailable' });
          return;
        }
        await deliverWebhook(
          { webhookId: hook.id, deliveryId, url: hook.url, secret: box.open(hook.sealedSecret, hook.id), event: SCORE_CHANGED, body, traceparent },
          { ...this.#settings, signal: this.#stopping.signal },
          (attempt) => recordAttempt(store, attempt),
        );
      })().catch(() => undefined);
      this.#inFlight.add(work);
      void work.finally(() => this.#inFlight.delete(work));
    }
  }

  /** Resolves once every delivery started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  async close(): Promise<void> {
    this.#stopping.abort();
    await this.idle();
  }
}
