import { POLICY_TYPE_TABLE } from './kinds/all-kinds.js';
import type { PolicyType } from './policy-record.js';

export interface PackPolicy {
  /** Stable key: a pack policy already present (from this or another pack) is not created twice. */
  key: PolicyType;
  name: string;
  type: PolicyType;
  risk: number;
  rules: Record<string, unknown>;
}

/** The policy a pack creates for a type, from the type's module. */
function packPolicy(type: PolicyType): PackPolicy {
  const pack = POLICY_TYPE_TABLE[type].pack;
  if (!pack) throw new Error(`no pack policy for ${type}`);
  return { key: type, name: pack.name, type, risk: pack.risk, rules: pack.rules };
}

const RATE_LIMIT = packPolicy('rate_limit');
const CONTENT_FILTER = packPolicy('content_filter');
const ENTROPY_CHECK = packPolicy('entropy_check');
const BOND = packPolicy('bond_enforcement');
const HALLUCINATION = packPolicy('hallucination_shield');
const PII = packPolicy('pii_redaction');

/** The starter packs (docs/policies.md, "Packs"): the paid pack is the free tier plus three. */
export const PACKS = {
  FREE_TIER_POLICIES: [RATE_LIMIT, CONTENT_FILTER, ENTROPY_CHECK],
  RUNTIME_PAID_POLICIES: [RATE_LIMIT, CONTENT_FILTER, ENTROPY_CHECK, BOND, HALLUCINATION, PII],
} as const satisfies Record<string, readonly PackPolicy[]>;

export type PackName = keyof typeof PACKS;
export const PACK_NAMES = Object.keys(PACKS) as PackName[];
