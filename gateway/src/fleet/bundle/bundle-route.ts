import type { HttpServer, Reply } from '../../http/server.js';
import type { SidecarTokenRecord } from '../../storage/repositories.js';
import type { ChangeFeed } from '../change-feed.js';
import { sidecarOf } from '../sidecar-auth.js';
import { buildBundle, type BundleExtras, type BundleSources } from './build-bundle.js';

/** The longest a bundle request is held open when nothing changed (docs/fleet.md, "The bundle"). */
export const MAX_BUNDLE_WAIT_S = 60;

export interface BundleRouteDeps extends BundleExtras {
  readonly repos: BundleSources;
  readonly changes: ChangeFeed;
}

const WAIT_PREFERENCE = /(?:^|[\s,;])wait\s*=\s*(\d+)/i;
const ENTITY_TAG = /^(?:W\/)?"(\d+)"$/;

/** `Prefer: wait=N` in seconds, capped; 0 when absent. */
export function preferredWaitS(header: string): number {
  const m = WAIT_PREFERENCE.exec(header);
  return m ? Math.min(Number(m[1]), MAX_BUNDLE_WAIT_S) : 0;
}

/** The revision an `If-None-Match: "<revision>"` names; null when absent or not one of ours. */
export function revisionOfTag(header: string): number | null {
  const m = ENTITY_TAG.exec(header.trim());
  return m ? Number(m[1]) : null;
}

/**
 * The serialised bundle per sidecar scope (every tenant, or a list of them), kept for the revision it was built at:
 * a hundred sidecars waiting on one change cost one build per scope, not one each.
 */
class BundleCache {
  readonly #byScope = new Map<string, { revision: number; json: string }>();

  constructor(private readonly deps: BundleRouteDeps) {}

  get(scope: SidecarTokenRecord, revision: number): string {
    const key = scope.tenants === null ? '*' : [...scope.tenants].sort().join('\0');
    const hit = this.#byScope.get(key);
    if (hit && hit.revision === revision) return hit.json;
    const json = JSON.stringify(buildBundle(this.deps.repos, scope, revision, this.deps));
    this.#byScope.set(key, { revision, json });
    return json;
  }
}

/**
 * `GET /v1/fleet/bundle` (docs/fleet.md, "The bundle"): the bundle of the tenants the sidecar token covers, with
 * `ETag: "<revision>"`. With `If-None-Match` naming the current revision it answers 304, after holding the request
 * up to `Prefer: wait=N` seconds (at most 60) for a change, and 200 with the new bundle as soon as one comes.
 */
export function registerBundleRoute(server: HttpServer, deps: BundleRouteDeps): void {
  const cache = new BundleCache(deps);
  server.route('get', '/v1/fleet/bundle', { auth: 'sidecar', body: 'none', headers: ['if-none-match', 'prefer'] }, async (ctx): Promise<Reply> => {
    const scope = sidecarOf(ctx);
    let revision = deps.changes.revision();
    const known = revisionOfTag(ctx.header('if-none-match'));
    if (known === revision) {
      const waitS = preferredWaitS(ctx.header('prefer'));
      if (waitS > 0) {
        // A client that goes away ends its wait (no timer or waiter left behind).
        const stop = new AbortController();
        ctx.onAbort = () => stop.abort();
        revision = await deps.changes.waitForChange(revision, waitS * 1000, stop.signal);
        ctx.onAbort = null;
      }
      if (known === revision) return { status: 304, headers: { etag: `"${revision}"` } };
    }
    return { status: 200, raw: cache.get(scope, revision), contentType: 'application/json', headers: { etag: `"${revision}"`, 'cache-control': 'no-cache' } };
  });
}
