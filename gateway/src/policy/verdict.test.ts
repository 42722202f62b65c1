import { describe, expect, it } from 'vitest';
import { isBlockingAction, isHeld, mostSevere, verdictOf } from './verdict.js';
import type { PolicyAction } from './policy-record.js';

const t = (...actions: PolicyAction[]) => actions.map((action) => ({ action }));

describe('verdict order', () => {
  it('DENY > ESCALATE > REQUIRE_APPROVAL > ALLOW; FLAG and REDACT allow', () => {
    expect(verdictOf('FLAG')).toBe('ALLOW');
    expect(verdictOf('REDACT')).toBe('ALLOW');
    expect(mostSevere(t('FLAG', 'REQUIRE_APPROVAL', 'DENY', 'ESCALATE'), 'ALLOW')).toBe(2);
    expect(mostSevere(t('REQUIRE_APPROVAL', 'ESCALATE'), 'ALLOW')).toBe(1);
  });

  it('the first of equally severe triggers wins; nothing above the floor gives -1', () => {
    expect(mostSevere(t('ESCALATE', 'ESCALATE'), 'ALLOW')).toBe(0);
    expect(mostSevere(t('FLAG', 'REDACT'), 'ALLOW')).toBe(-1);
    expect(mostSevere(t('REQUIRE_APPROVAL', 'ESCALATE'), 'ESCALATE')).toBe(-1);
    expect(mostSevere([], 'DENY')).toBe(-1);
  });

  it('held and blocking verdicts', () => {
    expect(['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE'].filter((v) => isHeld(v as never))).toEqual(['REQUIRE_APPROVAL', 'ESCALATE']);
    expect((['DENY', 'ESCALATE', 'REQUIRE_APPROVAL', 'REDACT', 'FLAG'] as const).map(isBlockingAction)).toEqual([true, true, true, false, false]);
  });
});
