import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ScannerError } from '../errors.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { checkTarget, refuseSelfHop } from './target.js';

/**
 * The steps every assessment route shares, in order: the target URL checked (400), a slot among the assessments in
 * flight (429), the client's and the platform's rate limits (429), then the collection. During it every hop is
 * vetted: the self-audit rule at each redirect and secondary fetch, and the per-target token taken at the page's
 * first hop, once the guard accepted it. A client that goes away aborts the collection. `judge` runs while the slot
 * is still held, since judging is where a page's parsed tree lives.
 */
export async function assessForRequest<T>(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  url: string,
  judge: (target: URL, snapshot: Snapshot) => T,
): Promise<T> {
  const target = checkTarget(url, app.selfIdentity);
  const release = app.inFlight.acquire();
  const gone = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableFinished) gone.abort(new ScannerError('client_closed'));
  };
  reply.raw.once('close', onClose);
  try {
    app.rateLimits.takeClient(request.ip);
    return judge(target, await collectGuarded(app, target, gone.signal));
  } finally {
    reply.raw.off('close', onClose);
    release();
  }
}

/**
 * The same steps without a client (a scheduled monitor run): no per-address limit, and `signal` is the only
 * cancellation. The target, in-flight and per-target limits still apply.
 */
export async function assessUnattended<T>(app: FastifyInstance, url: string, judge: (target: URL, snapshot: Snapshot) => T, signal?: AbortSignal): Promise<T> {
  const target = checkTarget(url, app.selfIdentity);
  const release = app.inFlight.acquire();
  try {
    return judge(target, await collectGuarded(app, target, signal));
  } finally {
    release();
  }
}

/** Collects the target's snapshot: every hop re-checked against the service itself, the per-target limit on the first. */
async function collectGuarded(app: FastifyInstance, target: URL, signal: AbortSignal | undefined): Promise<Snapshot> {
  let targetTaken = false;
  return app.snapshots.collect(target.href, {
    ...(signal === undefined ? {} : { signal }),
    onHop: (hop) => {
      refuseSelfHop(hop, app.selfIdentity);
      if (!targetTaken) {
        targetTaken = true;
        app.rateLimits.takeTarget(hop.url.hostname);
      }
    },
  });
}
