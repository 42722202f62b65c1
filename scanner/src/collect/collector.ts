import type { NetGuard } from '@aduana/shared';
import type { PageProbe, Probe, Snapshot, SnapshotPart } from '../snapshot/snapshot.js';
import type { CollectOptions } from './collect-snapshot.js';
import type { StaticFetchOptions } from './fetch-static.js';

/** The snapshot parts gathered once the page answered; the page itself is the step every collector waits for. */
export type CollectedPart = Exclude<SnapshotPart, 'page'>;

/** What every collector of one collection shares: the page as fetched, the one guard, the secondary-resource caps. */
export interface CollectContext {
  readonly page: PageProbe;
  /** The URL the caller asked about, parsed. */
  readonly requested: URL;
  /** The https URL of the target (the page's final URL, else the requested one); undefined for a plain-http site. */
  readonly tlsUrl: URL | undefined;
  readonly guard: NetGuard;
  /** Fetch options for secondary resources (smaller caps than the page's). */
  readonly resource: StaticFetchOptions;
  readonly options: CollectOptions;
  /** A same-origin URL of the page's final origin. */
  at(path: string): string;
  /** One secondary GET, reported as a plain Probe (never rejects, except when the collection is cancelled). */
  get(target: string, accept: string): Promise<Probe>;
  /** The part another collector fills, for an ordering constraint; that collector must come earlier in the registry. */
  part<P extends CollectedPart>(part: P): Promise<Snapshot[P] | undefined>;
}

/**
 * One collector: the snapshot part it fills and how. Resolving undefined means "not attempted" (the part is then
 * absent from the snapshot); a failed fetch is a Probe that says so, never a rejection.
 */
export interface Collector<P extends CollectedPart = CollectedPart> {
  readonly part: P;
  collect(context: CollectContext): Promise<Snapshot[P] | undefined>;
}

/** A collector of any part: the registry's element type, each entry keeping its own part's type. */
export type AnyCollector = { [P in CollectedPart]: Collector<P> }[CollectedPart];
