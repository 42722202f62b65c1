import type { PolicyType } from './types.js';
import { ALL_PII_ENTITIES } from '../pii/index.js';

const action = (allowed: readonly string[], dflt: string) => ({ type: 'string', enum: allowed, default: dflt });
const FLOW = ['DENY', 'ESCALATE', 'REQUIRE_APPROVAL', 'FLAG'];

/**
 * JSON Schema of `rules` for each policy type, with defaults (ajv `useDefaults` fills them, so a stored policy always
 * has every field). Compiled once at start.
 */
export const RULES_SCHEMAS: Readonly<Record<PolicyType, object>> = {
  rate_limit: {
    type: 'object',
    additionalProperties: false,
    required: ['limit', 'window_s'],
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 10_000_000 },
      window_s: { type: 'integer', minimum: 1, maximum: 86_400 * 31 },
      scope: { type: 'string', enum: ['agent', 'tenant'], default: 'agent' },
      action: action(FLOW, 'DENY'),
    },
  },
  content_filter: {
    type: 'object',
    additionalProperties: false,
    required: ['patterns'],
    properties: {
      patterns: { type: 'array', minItems: 1, maxItems: 500, items: { type: 'string', minLength: 1, maxLength: 2000 } },
      action: action(FLOW, 'DENY'),
      target: { type: 'string', enum: ['input', 'output', 'both'], default: 'input' },
      case_insensitive: { type: 'boolean', default: false },
    },
  },
  entropy_check: {
    type: 'object',
    additionalProperties: false,
    properties: {
      min_length: { type: 'integer', minimum: 8, maximum: 4096, default: 24 },
      threshold_bits: { type: 'number', minimum: 0, maximum: 8, default: 4.5 },
      action: action(FLOW, 'DENY'),
    },
  },
  pii_redaction: {
    type: 'object',
    additionalProperties: false,
    properties: {
      entities: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: ALL_PII_ENTITIES }, default: [...ALL_PII_ENTITIES] },
      action: action(['REDACT', 'DENY'], 'REDACT'),
      target: { type: 'string', enum: ['input', 'output', 'both'], default: 'both' },
    },
  },
  bond_enforcement: {
    type: 'object',
    additionalProperties: false,
    properties: {
      action: action(FLOW, 'REQUIRE_APPROVAL'),
      default_budget: { type: ['number', 'null'], minimum: 0, default: null },
      max_risk_budget: { type: ['number', 'null'], minimum: 0, default: null },
    },
  },
  hallucination_shield: {
    type: 'object',
    additionalProperties: false,
    properties: {
      action: action(FLOW, 'FLAG'),
      target: { type: 'string', enum: ['output'], default: 'output' },
    },
  },
  budget: {
    type: 'object',
    additionalProperties: false,
    required: ['max_cost_brl'],
    properties: {
      max_cost_brl: { type: 'number', exclusiveMinimum: 0 },
      period: { type: 'string', enum: ['day', 'month'], default: 'month' },
      scope: { type: 'string', enum: ['agent', 'tenant'], default: 'agent' },
      action: action(FLOW, 'DENY'),
    },
  },
};
