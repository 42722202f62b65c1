import type { PolicyType } from './types.js';

export interface PackPolicy {
  /** Stable key: a pack policy already present (from this or another pack) is not created twice. */
  key: PolicyType;
  name: string;
  type: PolicyType;
  risk: number;
  rules: Record<string, unknown>;
}

const RATE_LIMIT: PackPolicy = {
  key: 'rate_limit',
  name: 'Agent request rate',
  type: 'rate_limit',
  risk: 40,
  rules: { limit: 120, window_s: 60, scope: 'agent', action: 'DENY' },
};

const CONTENT_FILTER: PackPolicy = {
  key: 'content_filter',
  name: 'Destructive and injection content',
  type: 'content_filter',
  risk: 80,
  rules: {
    // Prompt-injection phrasing and destructive commands: high-precision phrases, not single words.
    patterns: [
      '(?i)ignore (all |any )?(previous|prior|above) (instructions|prompts)',
      '(?i)disregard (all |any )?(previous|prior|your) (instructions|rules)',
      '(?i)\\bdrop\\s+(table|database)\\b',
      '(?i)\\btruncate\\s+table\\b',
      '(?i)\\brm\\s+-rf\\s+/',
      '(?i)\\bformat\\s+c:',
    ],
    action: 'DENY',
    target: 'input',
    case_insensitive: false,
  },
};

const ENTROPY_CHECK: PackPolicy = {
  key: 'entropy_check',
  name: 'Leaked secrets (high-entropy tokens)',
  type: 'entropy_check',
  risk: 70,
  rules: { min_length: 32, threshold_bits: 4.5, action: 'DENY' },
};

const BOND: PackPolicy = {
  key: 'bond_enforcement',
  name: 'Session risk budget',
  type: 'bond_enforcement',
  risk: 50,
  rules: { action: 'REQUIRE_APPROVAL', default_budget: null },
};

const HALLUCINATION: PackPolicy = {
  key: 'hallucination_shield',
  name: 'Unsupported citations and invalid tool calls',
  type: 'hallucination_shield',
  risk: 30,
  rules: { action: 'FLAG', target: 'output' },
};

const PII: PackPolicy = {
  key: 'pii_redaction',
  name: 'Personal data redaction',
  type: 'pii_redaction',
  risk: 20,
  rules: { action: 'REDACT', target: 'both' },
};

/** The spec's starter packs (Policies): the paid pack is the free tier plus three. */
export const PACKS = {
  FREE_TIER_POLICIES: [RATE_LIMIT, CONTENT_FILTER, ENTROPY_CHECK],
  RUNTIME_PAID_POLICIES: [RATE_LIMIT, CONTENT_FILTER, ENTROPY_CHECK, BOND, HALLUCINATION, PII],
} as const satisfies Record<string, readonly PackPolicy[]>;

export type PackName = keyof typeof PACKS;
export const PACK_NAMES = Object.keys(PACKS) as PackName[];
