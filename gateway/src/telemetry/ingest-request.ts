import { GatewayError } from '../errors.js';
import { isValidLedgerName } from '../ledger/index.js';
import { assertValid, OwnSchema } from '../platform/gateway-ajv.js';
import type { IngestInput } from './telemetry-service.js';
import { LOG_LEVELS, type LogLevel } from './telemetry-records.js';

const ID = { type: 'string', minLength: 1, maxLength: 256 };

const validate = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['log'],
  properties: {
    traceId: ID,
    tenantId: { type: 'string', minLength: 1, maxLength: 64 },
    agentId: ID,
    log: {
      type: 'object',
      additionalProperties: false,
      required: ['level', 'message'],
      properties: {
        level: { type: 'string', enum: [...LOG_LEVELS] },
        message: { type: 'string', minLength: 1, maxLength: 16_384 },
        attributes: { type: 'object', maxProperties: 64 },
      },
    },
  },
});

/**
 * A telemetry ingest request (docs/telemetry.md, "Ingest"): `log` {level, message, attributes?}; `agentId` and
 * `traceId` optional (the request's trace id when absent), both without control characters, and so is
 * `attributes.ruleId` (the rule of the error event), a string when present.
 */
export function parseIngest(body: unknown, requestTraceId: string): IngestInput & { tenantId: string | undefined } {
  assertValid(validate, body);
  const b = body as { traceId?: string; tenantId?: string; agentId?: string; log: { level: LogLevel; message: string; attributes?: Record<string, unknown> } };
  const ruleId = b.log.attributes?.['ruleId'];
  if (ruleId !== undefined && typeof ruleId !== 'string') throw new GatewayError('invalid_request', 'log.attributes.ruleId: a string');
  for (const [field, v] of [['agentId', b.agentId], ['traceId', b.traceId], ['log.attributes.ruleId', ruleId || undefined]] as const) {
    if (v !== undefined && !isValidLedgerName(v)) throw new GatewayError('invalid_request', `${field}: no control characters, at most 256 bytes`);
  }
  return { tenantId: b.tenantId, agentId: b.agentId ?? '', traceId: b.traceId ?? requestTraceId, log: b.log };
}
