import { randomUUID } from 'node:crypto';
import { createEnvelope, dsnFromString, getEnvelopeEndpointWithUrlEncodedAuth, serializeEnvelope, type Event, type EventEnvelope } from '@sentry/core';
import type { Dispatcher } from 'undici';
import { ExportQueue, textSize, type ExportQueueOptions } from './export-queue.js';
import { postBytes } from './post-bytes.js';

export interface ForwardedError {
  atMs: number;
  level: string;
  message: string;
  fingerprint: string;
  tags: Record<string, string>;
}

const LEVELS: Record<string, Event['level']> = { error: 'error', fatal: 'fatal', warn: 'warning', warning: 'warning', info: 'info', debug: 'debug' };

/**
 * Error events to a Sentry-compatible tracker as envelopes (`POST` to the DSN's envelope endpoint), built with
 * @sentry/core's envelope helpers, one event per envelope as the protocol asks, through our own queue. Each event
 * carries the issue fingerprint we group by, so the tracker groups the same way.
 */
export function sentryQueue(
  dsnString: string,
  timeoutMs: number,
  queue: Omit<ExportQueueOptions<ForwardedError>, 'name' | 'send' | 'batchMax' | 'sizeOf'>,
  dispatcher?: Dispatcher,
): ExportQueue<ForwardedError> {
  const dsn = dsnFromString(dsnString);
  if (!dsn) throw new Error('SENTRY_DSN: not a valid DSN');
  const url = getEnvelopeEndpointWithUrlEncodedAuth(dsn);
  const headers = { 'content-type': 'application/x-sentry-envelope' };
  return new ExportQueue<ForwardedError>({
    ...queue,
    name: 'sentry',
    batchMax: 1,
    sizeOf: (e) => 64 + e.message.length + e.fingerprint.length + textSize(e.tags),
    async send(batch) {
      const e = batch[0] as ForwardedError;
      const eventId = randomUUID().replaceAll('-', '');
      const event: Event = {
        event_id: eventId,
        timestamp: e.atMs / 1000,
        level: LEVELS[e.level] ?? 'error',
        message: e.message,
        platform: 'node',
        logger: 'aduana-gateway',
        fingerprint: [e.fingerprint],
        tags: e.tags,
      };
      const envelope = createEnvelope<EventEnvelope>({ event_id: eventId, sent_at: new Date().toISOString() }, [[{ type: 'event' }, event]]);
      await postBytes(url, 'sentry', headers, serializeEnvelope(envelope), timeoutMs, dispatcher);
    },
  });
}
