import type { PolicyAction } from '../policy-record.js';

/** Actions of every type but PII (which alone may REDACT). */
export const FLOW_ACTIONS: readonly PolicyAction[] = ['DENY', 'ESCALATE', 'REQUIRE_APPROVAL', 'FLAG'];

/** The `action` field of a rules schema. */
export function actionField(allowed: readonly PolicyAction[], dflt: PolicyAction): object {
  return { type: 'string', enum: allowed, default: dflt };
}

/** The `target` field of a rules schema: which side of a call the policy reads. */
export function targetField(dflt: 'input' | 'output' | 'both'): object {
  return { type: 'string', enum: ['input', 'output', 'both'], default: dflt };
}
