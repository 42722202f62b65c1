import { NetGuard, NetGuardError, parseTargetUrl, type AllowList, type CheckedTarget, type HostLookup } from '@aduana/shared';
import type { PageProbe, Probe, Snapshot } from '../snapshot/snapshot.js';
import { CollectError } from './collect-error.js';
import type { CollectContext, CollectedPart } from './collector.js';
import { COLLECTORS } from './collectors.js';
import { fetchStatic, type StaticFetchOptions } from './fetch-static.js';

export interface CollectOptions {
  /** CIDRs allowed despite being private (the scanner reads `SCANNER_ALLOW_PRIVATE`; empty by default). */
  readonly allowPrivate?: readonly string[] | AllowList;
  /** Page fetch, redirects and body included (default 10 s). */
  readonly timeoutMs?: number;
  /** Page body cap; a longer body is cut and marked `truncated` (default 5 MiB). */
  readonly maxBodyBytes?: number;
  /** Redirects followed, each re-checked by the guard (default 5). */
  readonly maxRedirects?: number;
  readonly userAgent?: string;
  /** Cancels the whole collection: collectSnapshot then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Per secondary resource (robots.txt, well-known files, TLS …): default 5 s and 512 KiB. */
  readonly resourceTimeoutMs?: number;
  readonly resourceMaxBodyBytes?: number;
  /** Port of the plain-http listener asked about the https redirect (default 80; tests use an ephemeral one). */
  readonly httpPort?: number;
  /** Host-name resolver (default `dns.lookup`; tests point names at loopback). */
  readonly lookup?: HostLookup;
  /** Extra trusted roots for the TLS verdict, added to the system ones (tests). */
  readonly ca?: readonly string[];
  /**
   * Vets every hop of every fetch once the guard accepted it, before connecting (the scanner refuses its own address
   * here, and takes the per-target rate token on the page's first hop). Throwing refuses the hop: a refused page hop
   * makes collectSnapshot reject with that error, a refused secondary fetch is a probe failed as 'blocked'.
   */
  readonly onHop?: (target: CheckedTarget, hop: number) => void;
}

export const COLLECT_DEFAULTS = Object.freeze({
  timeoutMs: 10_000,
  maxBodyBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  userAgent: 'aduana-scanner/0.1 (+https://github.com/aduana; read-only assessment)',
  resourceTimeoutMs: 5_000,
  resourceMaxBodyBytes: 512 * 1024,
});

/**
 * Collects everything the checks judge, once. The page first, following redirects; then, only when it answered,
 * every collector of the registry (collectors.ts) in parallel, with smaller caps, each filling its snapshot part.
 * Every request, including the TLS handshake, goes through one SSRF guard and connects only to addresses it checked.
 *
 * Certificates are not enforced on the fetches (an expired or self-signed certificate is a finding to report, not
 * a reason to refuse the assessment); `tls.authorized` carries the verdict. Nothing is sent that could expose a
 * user, so reading through an unverified channel only risks reporting on what an attacker served.
 *
 * Throws NetGuardError ('invalid_url' for the given URL, 'blocked' when the URL or any redirect hop of the page is
 * refused) and CollectError ('timeout', 'unreachable') when the page gave no answer.
 */
export async function collectSnapshot(url: string, options: CollectOptions = {}): Promise<Snapshot> {
  const requested = parseTargetUrl(url);
  const collectedAt = new Date().toISOString();
  const guard = new NetGuard({
    allowPrivate: options.allowPrivate ?? [],
    ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
    connect: { rejectUnauthorized: false },
    maxConnectionsPerOrigin: 6, // what a browser opens: the parallel probes queue politely instead of opening 15
  });
  const base = {
    guard,
    userAgent: options.userAgent ?? COLLECT_DEFAULTS.userAgent,
    maxRedirects: options.maxRedirects ?? COLLECT_DEFAULTS.maxRedirects,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onHop === undefined ? {} : { onHop: options.onHop }),
  };
  try {
    const { probe: page, failure } = await fetchStatic(requested.href, {
      ...base,
      timeoutMs: options.timeoutMs ?? COLLECT_DEFAULTS.timeoutMs,
      maxBodyBytes: options.maxBodyBytes ?? COLLECT_DEFAULTS.maxBodyBytes,
    });
    if (page.status === null || page.error === 'redirect_limit') throw pageFailure(page, failure);

    const resource: StaticFetchOptions = {
      ...base,
      timeoutMs: options.resourceTimeoutMs ?? COLLECT_DEFAULTS.resourceTimeoutMs,
      maxBodyBytes: options.resourceMaxBodyBytes ?? COLLECT_DEFAULTS.resourceMaxBodyBytes,
    };
    const origin = new URL(page.finalUrl).origin;
    // Every collector starts at once, in registry order; Promise.all rejects with the first cancellation.
    const started = new Map<CollectedPart, Promise<unknown>>();
    const context: CollectContext = {
      page,
      requested,
      tlsUrl: [new URL(page.finalUrl), requested].find((u) => u.protocol === 'https:'),
      guard,
      resource,
      options,
      at: (path) => `${origin}${path}`,
      get: async (target, accept) => toProbe((await fetchStatic(target, { ...resource, accept })).probe),
      part: (part) => {
        const filled = started.get(part);
        if (filled === undefined) throw new Error(`collector order: ${part} is not collected before it is needed`);
        return filled as Promise<Snapshot[typeof part] | undefined>;
      },
    };
    for (const collector of COLLECTORS) started.set(collector.part, collector.collect(context));
    const values = await Promise.all(COLLECTORS.map((collector) => started.get(collector.part)));
    const parts: Partial<Record<CollectedPart, unknown>> = {};
    COLLECTORS.forEach((collector, i) => {
      if (values[i] !== undefined) parts[collector.part] = values[i];
    });
    return { requestedUrl: requested.href, collectedAt, page, ...(parts as Partial<Pick<Snapshot, CollectedPart>>) };
  } finally {
    await guard.close();
  }
}

function pageFailure(page: PageProbe, failure: unknown): Error {
  // A refused hop anywhere in the page's redirect chain is the caller's URL being refused (400), by the guard or onHop.
  if (failure instanceof NetGuardError) {
    if (failure.code === 'blocked') return failure;
  } else if (page.error === 'blocked' && failure instanceof Error) return failure;
  if (page.error === 'timeout') return new CollectError('timeout', `${page.url} did not answer in time`, page, { cause: failure });
  return new CollectError('unreachable', `${page.url} is unreachable (${page.error ?? 'network'})`, page, { cause: failure });
}

/** Keeps exactly the Probe fields: secondary resources are plain probes in the contract. */
function toProbe(p: PageProbe): Probe {
  return {
    url: p.url,
    status: p.status,
    headers: p.headers,
    setCookies: p.setCookies,
    contentType: p.contentType,
    body: p.body,
    truncated: p.truncated,
    wireBytes: p.wireBytes,
    bodyBytes: p.bodyBytes,
    ...(p.error === undefined ? {} : { error: p.error }),
  };
}
