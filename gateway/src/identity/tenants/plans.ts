import type { BucketOptions } from '@aduana/shared';
import { GatewayError } from '../../errors.js';

/**
 * The plan table (docs/decisions.md, "Limits (plans)"), per tenant: requests per minute and burst, and the MCP sessions
 * it may hold open through one gateway (its share of the session table; MCP_SESSIONS_MAX overrides it).
 */
export const PLANS = {
  community: { rpm: 60, burst: 10, mcpSessions: 100 },
  professional: { rpm: 600, burst: 100, mcpSessions: 1_000 },
  enterprise: { rpm: Infinity, burst: Infinity, mcpSessions: 10_000 },
} as const;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as Plan[];

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && value in PLANS;
}

/** Plans whose ledger checkpoints are time-stamped by the TSA (ANCHOR_TSA_URL; docs/ledger.md, "Anchoring"): the top plan's. */
export function timestampsCheckpoints(plan: Plan | undefined): boolean {
  return plan === 'enterprise';
}

export function bucketFor(plan: Plan): BucketOptions {
  const p = PLANS[plan];
  return { capacity: p.burst, refillPerSecond: p.rpm / 60 };
}

/** The answer past a plan's rate limit: 429 with the whole seconds to wait in Retry-After. */
export function planLimitExceeded(retryAfterS: number): GatewayError {
  return new GatewayError('rate_limited', `plan rate limit exceeded; retry in ${retryAfterS} s`, '', { 'retry-after': String(retryAfterS) });
}
