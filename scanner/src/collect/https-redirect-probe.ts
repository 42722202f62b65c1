import type { HttpsRedirectInfo } from '../snapshot/snapshot.js';
import { fetchStatic, type StaticFetchOptions } from './fetch-static.js';

/**
 * Asks `http://host/` (first hop only, nothing followed) whether it sends visitors to https on the same host.
 * `httpPort` exists for tests, whose plain-http listener cannot sit on port 80.
 */
export async function probeHttpsRedirect(
  httpsUrl: URL,
  options: Omit<StaticFetchOptions, 'maxRedirects'> & { readonly httpPort?: number },
): Promise<HttpsRedirectInfo> {
  const { httpPort, ...fetchOptions } = options;
  const url = `http://${httpsUrl.hostname}${httpPort === undefined || httpPort === 80 ? '' : `:${String(httpPort)}`}/`;
  const { probe } = await fetchStatic(url, { ...fetchOptions, maxRedirects: 0 });
  const location = probe.headers.location ?? null;
  let redirectsToHttps = false;
  if (probe.status !== null && probe.status >= 300 && probe.status < 400 && location !== null) {
    try {
      const next = new URL(location, url);
      redirectsToHttps = next.protocol === 'https:' && next.hostname === httpsUrl.hostname;
    } catch {
      redirectsToHttps = false; // an unparsable Location redirects nowhere
    }
  }
  return {
    url,
    redirectsToHttps,
    status: probe.status,
    location,
    ...(probe.error === undefined ? {} : { error: probe.error }),
  };
}
