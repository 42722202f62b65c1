import type RE2 from 're2';
import type { PolicyAction } from './policy-record.js';

/** One compiled check: plain data, so evaluation is a loop over an array with no closures built per request. */
export type Check =
  | { kind: 'rate'; id: string; risk: number; action: PolicyAction; limit: number; windowMs: number; perAgent: boolean; index: number }
  | { kind: 'entropy'; id: string; risk: number; action: PolicyAction; minLength: number; threshold: number; index: number }
  | { kind: 'budget'; id: string; risk: number; action: PolicyAction; max: number; period: 'day' | 'month'; perAgent: boolean };

export interface PatternOwner {
  id: string;
  risk: number;
  action: PolicyAction;
}

export interface FilterEntry {
  pattern: string;
  owner: PatternOwner;
  ci: boolean;
}

export interface PiiPolicy {
  id: string;
  risk: number;
  action: 'REDACT' | 'DENY';
  entities: ReadonlySet<string>;
}

export interface BondPolicy {
  id: string;
  risk: number;
  action: PolicyAction;
  defaultBudget: number | null;
  maxBudget: number | null;
}

export interface ShieldPolicy {
  id: string;
  risk: number;
  action: PolicyAction;
}

/** One `tool_access` policy: its allow and deny globs each compiled to one RE2 (null: not given). */
export interface ToolRule {
  id: string;
  risk: number;
  action: PolicyAction;
  allow: RE2 | null;
  deny: RE2 | null;
  /** The MCP servers whose tools it judges; null: every tool, of a server or of none. */
  servers: ReadonlySet<string> | null;
}

/** One `model_access` policy: its allow and deny globs each compiled to one RE2 (null: not given). */
export interface ModelRule {
  id: string;
  risk: number;
  action: PolicyAction;
  allow: RE2 | null;
  deny: RE2 | null;
}

/** What a tenant's enabled policies add up to: each type's compile step adds to it, then the evaluator is built. */
export class CompiledParts {
  readonly checks: Check[] = [];
  readonly inFilters: FilterEntry[] = [];
  readonly outFilters: FilterEntry[] = [];
  readonly piiIn: PiiPolicy[] = [];
  readonly piiOut: PiiPolicy[] = [];
  readonly bonds: BondPolicy[] = [];
  /** `tool_access` on the input: a tool called (MCP tools/call, a `/v1/decide` tool call). */
  readonly tools: ToolRule[] = [];
  /** `tool_access` on the output: a tool listed (MCP tools/list) or called by an answer. */
  readonly toolsOut: ToolRule[] = [];
  readonly models: ModelRule[] = [];
  /** Every enabled shield; the first that applies runs the output check (one is enough). */
  readonly shields: ShieldPolicy[] = [];
  entropyChecks = 0;
  rateChecks = 0;
}
