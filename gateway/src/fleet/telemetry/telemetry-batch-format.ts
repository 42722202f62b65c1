import { GatewayError } from '../../errors.js';
import { isValidLedgerName } from '../../ledger/index.js';
import { COUNTER_INDEX, type Slot } from '../../telemetry/metric-slot.js';
import { LOG_LEVELS, type LogLevel } from '../../telemetry/telemetry-records.js';
import { assertValid, OwnSchema } from '../../platform/gateway-ajv.js';

/**
 * What a sidecar ships of its telemetry (`POST /v1/fleet/telemetry`, docs/fleet.md, "Telemetry"): metric slots (one
 * tenant's agent's second: counts' totals and the latency and cost samples, by metric index), logs and error events,
 * all PII-redacted at the sidecar already. `batch_id` is chosen once per batch and kept across resends, so the control
 * plane stores a batch once however often it arrives.
 */
export const TELEMETRY_BATCH_FORMAT = 'aduana-telemetry-batch/1';

export interface ShippedMetric {
  tenant_id: string;
  agent_id: string;
  second: number;
  slot: Slot;
}

export interface ShippedLog {
  tenant_id: string;
  id: string;
  timestamp: string;
  level: LogLevel;
  message: string;
  agent_id: string;
  trace_id: string;
  attributes: Record<string, unknown>;
}

export interface ShippedError {
  tenant_id: string;
  id: string;
  timestamp: string;
  level: string;
  message: string;
  agent_id: string;
  rule_id: string;
  trace_id: string;
}

export interface TelemetryBatch {
  format: typeof TELEMETRY_BATCH_FORMAT;
  instance_id: string;
  batch_id: string;
  metrics: ShippedMetric[];
  logs: ShippedLog[];
  errors: ShippedError[];
}

const TENANT = { type: 'string', minLength: 1, maxLength: 64 };
const NAME = { type: 'string', maxLength: 256 };
const ISO = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?Z$' };
const SAMPLE = { type: 'number', minimum: 0 };

const validate = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['format', 'instance_id', 'batch_id', 'metrics', 'logs', 'errors'],
  properties: {
    format: { const: TELEMETRY_BATCH_FORMAT },
    instance_id: { type: 'string', pattern: '^sci_[0-9A-Za-z]{1,64}$' },
    batch_id: { type: 'string', pattern: '^tlb_[0-9A-Za-z]{1,64}$' },
    metrics: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tenant_id', 'agent_id', 'second', 'slot'],
        properties: {
          tenant_id: TENANT,
          agent_id: NAME,
          second: { type: 'integer', minimum: 0, maximum: 8_640_000_000_000 },
          slot: {
            type: 'array',
            minItems: COUNTER_INDEX.length,
            maxItems: COUNTER_INDEX.length,
            items: { anyOf: [{ type: 'null' }, SAMPLE, { type: 'array', items: SAMPLE }] },
          },
        },
      },
    },
    logs: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tenant_id', 'id', 'timestamp', 'level', 'message', 'agent_id', 'trace_id', 'attributes'],
        properties: {
          tenant_id: TENANT,
          id: { type: 'string', pattern: '^log_[0-9A-Za-z]{1,64}$' },
          timestamp: ISO,
          level: { type: 'string', enum: [...LOG_LEVELS] },
          // Redaction may lengthen a message ([REDACTED:EMAIL]): room beyond ingest's 16,384 characters.
          message: { type: 'string', maxLength: 65_536 },
          agent_id: NAME,
          trace_id: NAME,
          attributes: { type: 'object' },
        },
      },
    },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tenant_id', 'id', 'timestamp', 'level', 'message', 'agent_id', 'rule_id', 'trace_id'],
        properties: {
          tenant_id: TENANT,
          id: { type: 'string', pattern: '^err_[0-9A-Za-z]{1,64}$' },
          timestamp: ISO,
          level: { type: 'string', minLength: 1, maxLength: 32 },
          message: { type: 'string', maxLength: 65_536 },
          agent_id: NAME,
          rule_id: NAME,
          trace_id: NAME,
        },
      },
    },
  },
});

/** Items in a batch, of every kind. */
export function batchSize(b: Pick<TelemetryBatch, 'metrics' | 'logs' | 'errors'>): number {
  return b.metrics.length + b.logs.length + b.errors.length;
}

/** Checks a batch's shape and bounds: 400 when malformed, 413 past `maxItems` items. Nothing is stored before this. */
export function parseTelemetryBatch(body: unknown, maxItems: number): TelemetryBatch {
  assertValid(validate, body);
  const batch = body as TelemetryBatch;
  if (batchSize(batch) > maxItems) throw new GatewayError('payload_too_large', `at most ${maxItems} items per telemetry batch`);
  for (const m of batch.metrics) {
    // A count is a number per second, a measure the list of its samples (metric-slot.ts).
    for (let i = 0; i < m.slot.length; i++) {
      const v = m.slot[i];
      if (v !== null && Array.isArray(v) === COUNTER_INDEX[i]) throw new GatewayError('invalid_request', `metrics: slot[${i}] must be ${COUNTER_INDEX[i] ? 'a count' : 'a list of samples'} or null`);
    }
  }
  for (const x of [...batch.metrics, ...batch.logs, ...batch.errors]) {
    if (!isValidLedgerName(x.tenant_id) || (x.agent_id !== '' && !isValidLedgerName(x.agent_id))) throw new GatewayError('invalid_request', 'tenant_id, agent_id: no control characters');
  }
  return batch;
}
