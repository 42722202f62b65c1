import { setTimeout as sleep } from 'node:timers/promises';
import { isNetGuardError, type NetGuard } from '@aduana/shared';
import { request } from 'undici';
import type { DeliveryRecord } from '../storage/scanner-store.js';
import { signDelivery } from './signature.js';

export interface DeliverySettings {
  readonly guard: NetGuard;
  readonly timeoutMs: number;
  /** Waits before the 2nd and 3rd attempts: three attempts in all. */
  readonly retryDelaysMs: readonly [number, number];
  readonly userAgent: string;
  /** Stops retries when the service shuts down. */
  readonly signal: AbortSignal;
  readonly now?: () => number;
}

export interface Delivery {
  readonly webhookId: string;
  readonly deliveryId: string;
  readonly url: string;
  readonly secret: string;
  readonly event: string;
  /** The exact bytes that are signed and sent. */
  readonly body: string;
  readonly traceparent: string;
}

type Outcome = { readonly status: number } | { readonly error: string };

/**
 * Delivers one event (docs/scanner.md, "Webhooks"): the URL is checked by the address guard once and every attempt
 * connects to the checked address only (no second DNS lookup); redirects are never followed (a 3xx is the
 * answer); each attempt has a time-out; network errors and 5xx answers are retried after 1 s and 4 s, three
 * attempts in all. Every attempt is handed to `record` with its status or error.
 */
export async function deliverWebhook(delivery: Delivery, settings: DeliverySettings, record: (attempt: DeliveryRecord) => Promise<void>): Promise<void> {
  const now = settings.now ?? Date.now;
  let target;
  try {
    target = await settings.guard.check(delivery.url);
  } catch (err) {
    // A URL that now resolves somewhere private is not retried: it would be refused again.
    await record(attemptRecord(delivery, 1, now(), { error: isNetGuardError(err) ? `refused: ${err.code}` : 'refused' }));
    return;
  }
  const dispatcher = settings.guard.dispatcherFor(target);
  for (let attempt = 1; attempt <= 3; attempt++) {
    const at = now();
    const timestamp = Math.floor(at / 1000);
    let outcome: Outcome;
    try {
      const res = await request(target.url, {
        method: 'POST',
        dispatcher,
        headers: {
          'content-type': 'application/json',
          'user-agent': settings.userAgent,
          'x-svc-event': delivery.event,
          traceparent: delivery.traceparent,
          'x-svc-delivery': delivery.deliveryId,
          'x-svc-timestamp': String(timestamp),
          'x-svc-signature': signDelivery(delivery.secret, timestamp, delivery.body),
        },
        body: delivery.body,
        // undici.request never follows redirects: a 3xx is recorded as the answer.
        signal: AbortSignal.any([AbortSignal.timeout(settings.timeoutMs), settings.signal]),
      });
      // Only the status counts; the body is drained (dump stops reading past 128 KiB, and the time-out still applies).
      await res.body.dump().catch(() => undefined);
      outcome = { status: res.statusCode };
    } catch (err) {
      outcome = { error: errorName(err, settings.signal) };
    }
    await record(attemptRecord(delivery, attempt, at, outcome));
    const retry = 'error' in outcome || outcome.status >= 500;
    if (!retry || attempt === 3 || settings.signal.aborted) return;
    try {
      await sleep(settings.retryDelaysMs[attempt - 1], undefined, { signal: settings.signal });
    } catch {
      return;
    }
  }
}

function attemptRecord(d: Delivery, attempt: number, at: number, outcome: Outcome): DeliveryRecord {
  return {
    id: `${d.deliveryId}.${String(attempt)}`,
    webhookId: d.webhookId,
    deliveryId: d.deliveryId,
    event: d.event,
    attempt,
    timestamp: new Date(at).toISOString(),
    status: 'status' in outcome ? outcome.status : null,
    error: 'error' in outcome ? outcome.error : null,
  };
}

/** A short, stable description: never the message, which may quote the URL's query. */
function errorName(err: unknown, shutdown: AbortSignal): string {
  if (shutdown.aborted) return 'aborted: service stopping';
  const e = err as { name?: string; code?: string };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  return typeof e.code === 'string' ? e.code : 'network error';
}
