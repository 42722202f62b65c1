import { GatewayError } from '../errors.js';
import { estimateProgramSize } from './pattern-size.js';
import type { PolicyRecord, RulesByType } from './policy-record.js';

/**
 * What one tenant's policy set may cost, checked on every policy change against the whole candidate set (and again
 * when a stored set is compiled): content filters are scanned on every request, in time that grows with the input's
 * length times the size of the compiled patterns, so both sides are bounded (docs/policies.md, "Limits").
 */
export interface PolicyLimits {
  /** Policies per tenant (each one evaluated, and recorded when it triggers). */
  maxPolicies: number;
  /** Content-filter patterns per tenant, all filters together. */
  maxPatterns: number;
  /** Estimated compiled size of one pattern (counted repetitions expanded). */
  maxPatternSize: number;
  /** Estimated compiled size of all of a tenant's patterns. */
  maxProgramSize: number;
}

/** Throws invalid_request (400) naming the first limit the set passes; enabled and disabled policies both count. */
export function checkPolicyLimits(policies: readonly PolicyRecord[], limits: PolicyLimits): void {
  if (policies.length > limits.maxPolicies) {
    throw new GatewayError('invalid_request', `a tenant holds at most ${limits.maxPolicies} policies; this change would make ${policies.length}`);
  }
  let patterns = 0;
  let program = 0;
  for (const p of policies) {
    if (p.type !== 'content_filter') continue;
    for (const pattern of (p.rules as RulesByType['content_filter']).patterns) {
      patterns++;
      const size = estimateProgramSize(pattern);
      if (size > limits.maxPatternSize) {
        throw new GatewayError('invalid_request', `rules.patterns: "${pattern.slice(0, 100)}" compiles to about ${size} instructions; the limit is ${limits.maxPatternSize} (large counted repetitions such as .{1000} cost the most)`);
      }
      program += size;
    }
  }
  if (patterns > limits.maxPatterns) {
    throw new GatewayError('invalid_request', `a tenant holds at most ${limits.maxPatterns} content-filter patterns; this change would make ${patterns}`);
  }
  if (program > limits.maxProgramSize) {
    throw new GatewayError('invalid_request', `the tenant's content-filter patterns would compile to about ${program} instructions; the limit is ${limits.maxProgramSize}`);
  }
}
