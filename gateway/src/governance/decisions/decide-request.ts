import { GatewayError } from '../../errors.js';
import { assertValid, OwnSchema } from '../../platform/gateway-ajv.js';
import { isValidLedgerName } from '../../ledger/index.js';
import { headedText } from '../../policy/input-text.js';

/** A DecideRequest (README, "The governance API"). */
export interface DecideRequest {
  agent_id: string;
  tenant_id?: string;
  action: { type: string; target?: string; method?: string; payload?: Record<string, unknown> };
  context?: { session_id?: string; risk_budget?: number };
}

const STR = { type: 'string', maxLength: 4096 };

const SCHEMA = {
  type: 'object',
  required: ['agent_id', 'action'],
  properties: {
    agent_id: { type: 'string', minLength: 1, maxLength: 256 },
    tenant_id: { type: 'string', minLength: 1, maxLength: 64 },
    action: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', minLength: 1, maxLength: 256 }, target: STR, method: { type: 'string', maxLength: 32 }, payload: { type: 'object' } },
    },
    context: {
      type: 'object',
      properties: { session_id: { type: 'string', maxLength: 256 }, risk_budget: { type: 'number', minimum: 0 } },
    },
  },
};

const DECIDE_SCHEMA = new OwnSchema(SCHEMA);

export class DecideRequestValidator {
  parse(body: unknown): DecideRequest {
    assertValid(DECIDE_SCHEMA, body);
    const req = body as DecideRequest;
    // The agent id becomes part of a ledger key: refuse here what the ledger would refuse after the answer.
    if (!isValidLedgerName(req.agent_id)) throw new GatewayError('invalid_request', 'agent_id: no control characters, at most 256 bytes');
    return req;
  }
}

/**
 * The text content filters, entropy and PII checks read for an action: its type, method and target and every string
 * in its payload, object keys included, joined by newlines. Not capped here: the evaluator refuses text past its cap
 * (413) rather than judging a part.
 */
export function actionText(req: DecideRequest): string {
  const parts: string[] = [req.action.type];
  if (req.action.method) parts.push(req.action.method);
  if (req.action.target) parts.push(req.action.target);
  return req.action.payload ? headedText(parts, req.action.payload) : parts.join('\n');
}
