import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { NetGuardError, type CheckedTarget, type NetGuard } from '@aduana/shared';
import type { HeaderMap, PageProbe } from '../snapshot/snapshot.js';
import { decodeText, isTextual, mediaTypeOf } from './decode-text.js';
import { probeErrorCode, type ProbeErrorCode } from './probe-error.js';
import { readBody } from './read-body.js';
import { untilAborted } from './until-aborted.js';

export interface StaticFetchOptions {
  /** Every hop goes through it: checked, then connected only to the checked address. */
  readonly guard: NetGuard;
  /** For the whole exchange, redirects and body included. */
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  /** Redirects followed. 0: the first answer is the result, a 3xx included, without error. */
  readonly maxRedirects: number;
  readonly userAgent: string;
  readonly accept?: string;
  /** The caller's cancellation: when it fires, fetchStatic rejects with its reason instead of reporting a probe error. */
  readonly signal?: AbortSignal;
  /**
   * Called with every hop the guard accepted, before connecting to it. Throwing refuses the hop: the probe fails as
   * 'blocked' and `failure` is what was thrown (collectSnapshot rethrows it when it refused a hop of the page).
   */
  readonly onHop?: (target: CheckedTarget, hop: number) => void;
}

export interface StaticFetch {
  readonly probe: PageProbe;
  /** The error behind `probe.error`, so a caller can tell a guard refusal (NetGuardError) from a network failure. */
  readonly failure?: unknown;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ACCEPT_HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/**
 * One static GET, the way the scanner sees a site: no cookies (none are ever sent, so a Set-Cookie on a redirect is
 * not replayed), no credentials, no JavaScript; redirects followed by hand (`request` never follows them) so that each
 * hop is re-checked by the guard. Network failures come back as a probe with `error`, never as a rejection.
 *
 * Timing: `ttfbMs` is the final hop's request to its response headers (Lighthouse's server response time excludes
 * redirects too); `totalMs` is from the first request to the end of the final body, redirects included.
 */
export async function fetchStatic(url: string, options: StaticFetchOptions): Promise<StaticFetch> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
  const started = performance.now();
  const chain: string[] = [];
  let current = url;
  let refused = false;
  try {
    for (let hop = 0; ; hop++) {
      chain.push(current);
      const target = await untilAborted(options.guard.check(current), signal);
      if (options.onHop !== undefined) {
        try {
          options.onHop(target, hop);
        } catch (error) {
          refused = true;
          throw error;
        }
      }
      const hopStarted = performance.now();
      const res = await request(target.url, {
        method: 'GET',
        headers: { 'user-agent': options.userAgent, accept: options.accept ?? ACCEPT_HTML, 'accept-encoding': 'gzip, deflate, br' },
        dispatcher: options.guard.dispatcherFor(target),
        signal,
      });
      const ttfbMs = performance.now() - hopStarted;
      const { headers, setCookies } = toHeaderMap(res.headers);
      const location = headers.location;
      let error: ProbeErrorCode | undefined;
      if (REDIRECT_STATUSES.has(res.statusCode) && location !== undefined && options.maxRedirects > 0) {
        if (hop < options.maxRedirects) {
          await res.body.dump();
          current = nextHop(location, current);
          continue;
        }
        error = 'redirect_limit';
      }
      const contentType = headers['content-type'] ?? '';
      const mediaType = mediaTypeOf(contentType);
      const contentEncoding = headers['content-encoding'] ?? '';
      const read = await readBody(res.body, contentEncoding, options.maxBodyBytes);
      if (read.interruptedBy !== undefined) {
        if (options.signal?.aborted === true) throw options.signal.reason;
        error = timeout.aborted ? 'timeout' : probeErrorCode(read.interruptedBy);
      } else if (read.decodeFailed) {
        error ??= 'network';
      }
      const probe: PageProbe = {
        url,
        status: res.statusCode,
        headers,
        setCookies,
        contentType: mediaType,
        body: isTextual(mediaType) ? decodeText(read.bytes, contentType) : '',
        // A body that broke off is cut too: checks must not read it as complete.
        truncated: read.truncated || read.interruptedBy !== undefined,
        wireBytes: read.wireBytes,
        bodyBytes: read.bytes.length,
        ...(error === undefined ? {} : { error }),
        finalUrl: current,
        redirectChain: chain,
        ttfbMs: roundMs(ttfbMs),
        totalMs: roundMs(performance.now() - started),
        contentEncoding,
      };
      return read.interruptedBy === undefined ? { probe } : { probe, failure: read.interruptedBy };
    }
  } catch (failure) {
    if (options.signal?.aborted === true) throw options.signal.reason;
    const error = refused ? 'blocked' : timeout.aborted ? 'timeout' : probeErrorCode(failure);
    return { probe: failedProbe(url, current, chain, error, performance.now() - started), failure };
  }
}

/** Resolves a Location against the hop that sent it; an unusable one is a destination the guard refuses. */
function nextHop(location: string, base: string): string {
  try {
    return new URL(location, base).href;
  } catch (error) {
    throw new NetGuardError('invalid_url', 'redirect Location is not a URL', location.slice(0, 200), { cause: error });
  }
}

function failedProbe(url: string, finalUrl: string, chain: readonly string[], error: ProbeErrorCode, ms: number): PageProbe {
  return {
    url,
    status: null,
    headers: {},
    setCookies: [],
    contentType: '',
    body: '',
    truncated: false,
    wireBytes: 0,
    bodyBytes: 0,
    error,
    finalUrl,
    redirectChain: chain,
    ttfbMs: 0,
    totalMs: roundMs(ms),
    contentEncoding: '',
  };
}

/** HeaderMap per snapshot.ts: lower-case names, repeats joined with ", ", Set-Cookie kept apart. */
function toHeaderMap(raw: Record<string, string | string[] | undefined>): { headers: HeaderMap; setCookies: string[] } {
  const headers: Record<string, string> = {};
  let setCookies: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    if (key === 'set-cookie') setCookies = Array.isArray(value) ? value : [value];
    else headers[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { headers, setCookies };
}

function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}
