import { OwnSchema } from '../../platform/gateway-ajv.js';
import type { Provider } from '../wire/wire-formats.js';
import type { BreakerSpec, RouteSpec, TimeoutsSpec } from './route-spec.js';

/** Target, credential and deployment names. */
export const ROUTE_NAME = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';
/** Model names also take `/`: OpenAI-compatible servers name their models so (`Qwen/Qwen3-8B`). */
export const MODEL_NAME = '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,255}$';

/** How much one tenant's routes may hold: they are compiled and kept in memory for every call. */
export const ROUTE_LIMITS = Object.freeze({
  targets: 64,
  models: 256,
  targetsPerModel: 16,
  credentialsPerTarget: 16,
  deploymentsPerTarget: 256,
  baseUrlLength: 2048,
  retryAttempts: 10,
  retryOn: 32,
  /** Every duration in milliseconds: timeouts and back-off. */
  maxMs: 600_000,
  maxRetryAfterS: 600,
  maxWeight: 1_000_000,
  maxConsecutiveFailures: 1000,
  maxOpenS: 3600,
});

/** The wire formats targets speak: OpenAI's, Azure's and OpenAI-compatible servers' are one family. */
export type WireFamily = 'openai' | 'anthropic' | 'gemini';

/** Each provider's family: a call is sent as it is to its own family's targets, translated to the others' (docs/translation.md). */
export const WIRE_FAMILY: Readonly<Record<Provider, WireFamily>> = Object.freeze({ openai: 'openai', azure: 'openai', anthropic: 'anthropic', gemini: 'gemini' });

export const PROVIDERS = Object.keys(WIRE_FAMILY) as Provider[];

/**
 * What a route leaves out (docs/routing.md, "Routes"). The timeouts are the ones the proxy keeps without routes
 * (undici's connect timeout, UPSTREAM_TIMEOUT_MS's default for the answer's head and between chunks).
 */
export const ROUTE_DEFAULTS = Object.freeze({
  retry: Object.freeze({ attempts: 2, on: Object.freeze([429, 500, 502, 503, 504, 'connect', 'timeout'] as const), backoff_ms: Object.freeze({ base: 200, max: 5000 }), respect_retry_after_s: 30 }),
  timeouts_ms: Object.freeze({ connect: 10_000, first_byte: 120_000, idle_stream: 120_000 }) satisfies Required<TimeoutsSpec>,
  breaker: Object.freeze({ consecutive_failures: 5, open_s: 30 }) satisfies Required<BreakerSpec>,
  /** The api-version a call in OpenAI's format is sent to an Azure target with. */
  azureApiVersion: '2024-10-21',
});

const name = { type: 'string', pattern: ROUTE_NAME } as const;
const modelName = { type: 'string', pattern: MODEL_NAME } as const;
const ms = { type: 'integer', minimum: 1, maximum: ROUTE_LIMITS.maxMs } as const;

const target = {
  type: 'object',
  additionalProperties: false,
  required: ['provider', 'base_url'],
  properties: {
    provider: { type: 'string', enum: PROVIDERS },
    base_url: { type: 'string', maxLength: ROUTE_LIMITS.baseUrlLength },
    credential: name,
    credentials: { type: 'array', minItems: 1, maxItems: ROUTE_LIMITS.credentialsPerTarget, uniqueItems: true, items: name },
    deployments: { type: 'object', maxProperties: ROUTE_LIMITS.deploymentsPerTarget, propertyNames: { pattern: MODEL_NAME }, additionalProperties: name },
    api_version: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}(-preview)?$' },
  },
} as const;

/** A model route's target: its name, or `{target, model?, weight?}`. */
const modelTarget = {
  if: { type: 'string' },
  then: name,
  else: {
    type: 'object',
    additionalProperties: false,
    required: ['target'],
    properties: { target: name, model: modelName, weight: { type: 'number', exclusiveMinimum: 0, maximum: ROUTE_LIMITS.maxWeight } },
  },
} as const;

const modelRoute = {
  type: 'object',
  additionalProperties: false,
  required: ['strategy', 'targets'],
  properties: {
    strategy: { type: 'string', enum: ['fallback', 'weighted'] },
    targets: { type: 'array', minItems: 1, maxItems: ROUTE_LIMITS.targetsPerModel, items: modelTarget },
  },
} as const;

/**
 * The shape of a tenant's routes (`PUT /v1/routes`): every field typed and bounded, nothing unknown. No `default`
 * keywords: what is stored is what was written, so `aduana routes export` gives it back; ROUTE_DEFAULTS fill the rest
 * where routes are used. What one part says of another (names that resolve, targets that exist) is
 * route-validation.ts's.
 */
export const routeSpecSchema = new OwnSchema<RouteSpec>({
  type: 'object',
  additionalProperties: false,
  required: ['targets'],
  properties: {
    targets: { type: 'object', minProperties: 1, maxProperties: ROUTE_LIMITS.targets, propertyNames: { pattern: ROUTE_NAME }, additionalProperties: target },
    models: { type: 'object', maxProperties: ROUTE_LIMITS.models, propertyNames: { pattern: MODEL_NAME }, additionalProperties: modelRoute },
    retry: {
      type: 'object',
      additionalProperties: false,
      properties: {
        attempts: { type: 'integer', minimum: 0, maximum: ROUTE_LIMITS.retryAttempts },
        on: {
          type: 'array',
          maxItems: ROUTE_LIMITS.retryOn,
          uniqueItems: true,
          items: { if: { type: 'string' }, then: { enum: ['connect', 'timeout'] }, else: { type: 'integer', minimum: 400, maximum: 599 } },
        },
        backoff_ms: { type: 'object', additionalProperties: false, properties: { base: ms, max: ms } },
        respect_retry_after_s: { type: 'integer', minimum: 0, maximum: ROUTE_LIMITS.maxRetryAfterS },
      },
    },
    timeouts_ms: { type: 'object', additionalProperties: false, properties: { connect: ms, first_byte: ms, idle_stream: ms } },
    breaker: {
      type: 'object',
      additionalProperties: false,
      properties: {
        consecutive_failures: { type: 'integer', minimum: 1, maximum: ROUTE_LIMITS.maxConsecutiveFailures },
        open_s: { type: 'integer', minimum: 1, maximum: ROUTE_LIMITS.maxOpenS },
      },
    },
  },
});
