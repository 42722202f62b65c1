import type { CompileCandidate } from '../../src/policy/policy-store.js';
import type { PolicyCreate } from '../../src/policy/validate-policy.js';
import type { Repositories, SidecarTokenRepository } from '../../src/storage/repositories.js';

/** One backend's repositories, as the conformance suites use them. */
export interface StorageBackend {
  readonly repos: Repositories;
  readonly sidecarTokens: SidecarTokenRepository;
  close(): Promise<void>;
}

export type OpenBackend = () => Promise<StorageBackend>;

let seq = 0;
/** A tenant id no other test of the file uses (the PostgreSQL suites share one database). */
export function uniqueId(prefix: string): string {
  seq += 1;
  return `${prefix}-${process.pid}-${seq}-${Math.random().toString(36).slice(2, 8)}`;
}

export const SESSION_TTL_MS = 3_600_000;

export function ratePolicy(name: string): PolicyCreate {
  return { name, type: 'rate_limit', risk: 10, enabled: true, rules: { limit: 5, window_s: 60, scope: 'agent', action: 'DENY' } };
}

export interface Compiled {
  ids: string[];
  version: number;
}

/** A stand-in for the policy compiler: a set holding a policy named "broken" does not compile. */
export const compile: CompileCandidate<Compiled> = (candidate, version) => {
  if (candidate.some((p) => p.name === 'broken')) throw new Error('the candidate set does not compile');
  return { ids: candidate.map((p) => p.id), version };
};
