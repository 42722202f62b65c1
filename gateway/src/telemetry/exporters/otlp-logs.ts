import type { HrTime } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { JsonLogsSerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ExportQueue, textSize, type ExportQueueOptions } from './export-queue.js';
import type { OtlpTarget } from './otlp-config.js';
import { postBytes } from './post-bytes.js';

const SEVERITY: Record<string, SeverityNumber> = {
  trace: SeverityNumber.TRACE,
  debug: SeverityNumber.DEBUG,
  info: SeverityNumber.INFO,
  warn: SeverityNumber.WARN,
  warning: SeverityNumber.WARN,
  error: SeverityNumber.ERROR,
  fatal: SeverityNumber.FATAL,
};

export interface ForwardedLog {
  atMs: number;
  level: string;
  message: string;
  attributes: Record<string, string | number | boolean>;
}

function hrTime(ms: number): HrTime {
  const s = Math.floor(ms / 1000);
  return [s, Math.round((ms - s * 1000) * 1e6)];
}

/**
 * Logs to an OpenTelemetry collector as OTLP/HTTP JSON (`POST {endpoint}/v1/logs`), encoded by the OpenTelemetry
 * packages' serializer, sent through our own queue (docs/telemetry.md, "Forwarding").
 */
export function otlpLogsQueue(
  target: OtlpTarget,
  resource: Resource,
  timeoutMs: number,
  queue: Omit<ExportQueueOptions<ForwardedLog>, 'name' | 'send' | 'sizeOf'>,
  dispatcher?: Dispatcher,
): ExportQueue<ForwardedLog> {
  const scope = { name: 'aduana-gateway' };
  const url = `${target.endpoint}/v1/logs`;
  return new ExportQueue<ForwardedLog>({
    ...queue,
    name: 'otlp-logs',
    sizeOf: (l) => 64 + l.message.length + textSize(l.attributes),
    async send(batch) {
      const records: ReadableLogRecord[] = batch.map((l) => ({
        hrTime: hrTime(l.atMs),
        hrTimeObserved: hrTime(l.atMs),
        severityText: l.level.toUpperCase(),
        severityNumber: SEVERITY[l.level] ?? SeverityNumber.INFO,
        body: l.message,
        resource,
        instrumentationScope: scope,
        attributes: l.attributes,
        droppedAttributesCount: 0,
      }));
      const body = JsonLogsSerializer.serializeRequest(records);
      if (!body) throw new Error('otlp-logs: the serializer produced nothing');
      await postBytes(url, 'otlp-logs', target.headers, body, timeoutMs, dispatcher);
    },
  });
}
