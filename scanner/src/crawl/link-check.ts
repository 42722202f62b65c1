import { request } from 'undici';
import type { NetGuard } from '@aduana/shared';
import { probeErrorCode } from '../collect/probe-error.js';
import { untilAborted } from '../collect/until-aborted.js';

export interface LinkCheckOptions {
  readonly guard: NetGuard;
  readonly timeoutMs: number;
  readonly userAgent: string;
  readonly signal?: AbortSignal;
}

export interface LinkStatus {
  readonly status: number | null;
  readonly error?: string;
}

/**
 * One HEAD request through the guard, redirects not followed (a 3xx is an answer, not a broken link). Servers that
 * refuse HEAD (405, 501) are asked again with GET, whose body is discarded unread.
 */
export async function checkLink(url: string, options: LinkCheckOptions): Promise<LinkStatus> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
  try {
    const target = await untilAborted(options.guard.check(url), signal);
    const ask = async (method: 'HEAD' | 'GET'): Promise<number> => {
      const res = await request(target.url, {
        method,
        headers: { 'user-agent': options.userAgent, accept: '*/*' },
        dispatcher: options.guard.dispatcherFor(target),
        signal,
      });
      await res.body.dump();
      return res.statusCode;
    };
    let status = await ask('HEAD');
    if (status === 405 || status === 501) status = await ask('GET');
    return { status };
  } catch (failure) {
    if (options.signal?.aborted === true) throw options.signal.reason;
    return { status: null, error: timeout.aborted ? 'timeout' : probeErrorCode(failure) };
  }
}
