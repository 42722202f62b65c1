import type { PolicyAction } from './policy-record.js';

/**
 * The one place verdicts are ordered (docs/policies.md): DENY > ESCALATE > REQUIRE_APPROVAL > ALLOW. A triggered
 * policy's action maps to a verdict; REDACT (PII only) rewrites and allows, FLAG allows and only adds risk.
 */
export type Verdict = 'ALLOW' | 'DENY' | 'REQUIRE_APPROVAL' | 'ESCALATE';

/** Severity order of verdicts: DENY > ESCALATE > REQUIRE_APPROVAL > ALLOW. */
export const VERDICT_RANK: Readonly<Record<Verdict, number>> = { ALLOW: 0, REQUIRE_APPROVAL: 1, ESCALATE: 2, DENY: 3 };

export function verdictOf(action: PolicyAction): Verdict {
  return action === 'REDACT' || action === 'FLAG' ? 'ALLOW' : action;
}

/** The action stops or holds the call (anything but ALLOW). */
export function isBlockingAction(action: PolicyAction): boolean {
  return VERDICT_RANK[verdictOf(action)] > 0;
}

/** Verdicts that wait for a person and can be resolved. */
export function isHeld(verdict: Verdict): boolean {
  return verdict === 'REQUIRE_APPROVAL' || verdict === 'ESCALATE';
}

/**
 * Index of the trigger whose verdict is the most severe one above `floor` (the first of equals wins), or -1 when none
 * is above it. An index, not an object: this runs on every request and allocates nothing.
 */
export function mostSevere(triggered: readonly { readonly action: PolicyAction }[], floor: Verdict): number {
  let rank = VERDICT_RANK[floor];
  let at = -1;
  for (let i = 0; i < triggered.length; i++) {
    const r = VERDICT_RANK[verdictOf((triggered[i] as { action: PolicyAction }).action)];
    if (r > rank) {
      rank = r;
      at = i;
    }
  }
  return at;
}
