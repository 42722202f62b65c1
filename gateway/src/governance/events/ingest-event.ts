import { GatewayError } from '../../errors.js';
import { assertValid, OwnSchema } from '../../platform/gateway-ajv.js';

/** An event to ingest (README, "The events ledger"). */
export interface IngestEvent {
  event_type: string;
  payload: Record<string, unknown>;
  metadata?: { agent_id?: string; session_id?: string; tenant_id?: string; timestamp?: string } & Record<string, unknown>;
}

// Names become parts of LMDB keys: no control characters, at most 256 characters (the ledger's own limit).
const NAME = { type: 'string', minLength: 1, maxLength: 256, pattern: '^[^\\u0000-\\u001f\\u007f]+$' };
const ISO_DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$';

const EVENT = {
  type: 'object',
  required: ['event_type', 'payload'],
  additionalProperties: false,
  properties: {
    event_type: NAME,
    payload: { type: 'object' },
    metadata: {
      type: 'object',
      properties: {
        agent_id: NAME,
        session_id: { type: 'string', maxLength: 256 },
        tenant_id: { type: 'string', maxLength: 64 },
        timestamp: { type: 'string', pattern: ISO_DATE_TIME },
      },
    },
  },
};

const EVENT_SCHEMA = new OwnSchema(EVENT);
const BATCH_SCHEMA = new OwnSchema({ type: 'object', required: ['events'], additionalProperties: false, properties: { events: { type: 'array' } } });

/** One event and a batch envelope, checked by ajv validators compiled once per process. */
export class IngestValidator {
  event(body: unknown, path = ''): IngestEvent {
    assertValid(EVENT_SCHEMA, body, path);
    const ev = body as IngestEvent;
    const ts = ev.metadata?.timestamp;
    if (ts !== undefined && Number.isNaN(Date.parse(ts))) throw new GatewayError('invalid_request', `${path ? `${path}.` : ''}metadata.timestamp: not a valid date-time`);
    return ev;
  }

  /** The batch's events array (its length is checked against the limit by the caller, before the items). */
  batch(body: unknown): unknown[] {
    assertValid(BATCH_SCHEMA, body);
    return (body as { events: unknown[] }).events;
  }
}
