import type { OpenBackend } from './backend.js';
import { describePolicyRepository } from './policy-repository.suite.js';
import { describeSessionRepository } from './session-repository.suite.js';
import { describeSidecarTokenRepository } from './sidecar-token-repository.suite.js';
import { describeTenantRepository } from './tenant-repository.suite.js';
import { describeTokenRepository } from './token-repository.suite.js';
import { describeUserRepository } from './user-repository.suite.js';

/** Every capability's contract, against one backend: both backends run exactly these tests. */
export function describeRepositories(open: OpenBackend): void {
  describeTenantRepository(open);
  describeTokenRepository(open);
  describePolicyRepository(open);
  describeUserRepository(open);
  describeSessionRepository(open);
  describeSidecarTokenRepository(open);
}
