import type { RateLimits } from '../plugins/rate-limits.js';
import type { SnapshotSource } from '../plugins/snapshot-source.js';
import type { SelfIdentity } from './target.js';

/**
 * What the route plugins need, made once at start and handed to each plugin as its options: explicit dependencies
 * instead of decorators, so no route reaches infrastructure it did not ask for and no global type is augmented.
 */
export interface ScanServices {
  readonly rateLimits: RateLimits;
  readonly snapshots: SnapshotSource;
  readonly self: SelfIdentity;
}

export interface RouteServices {
  readonly services: ScanServices;
}
