import { fetchStatic, type StaticFetchOptions } from '../collect/fetch-static.js';
import { isAllowed, parseRobotsTxt, type RobotsBounds, type RobotsTxt } from '../parse/robots-txt.js';

/** The crawler's product token in robots.txt groups. */
export const CRAWLER_TOKEN = 'aduana-scanner';

/** One origin's robots.txt as the crawl obeys it (RFC 9309 §2.3.1). */
export type OriginRobots =
  | { readonly kind: 'rules'; readonly robots: RobotsTxt }
  /** 4xx: no robots.txt, everything allowed. */
  | { readonly kind: 'allow_all' }
  /** 5xx or unreachable: the origin is treated as fully disallowed. */
  | { readonly kind: 'disallow_all'; readonly status: number | null; readonly error?: string };

export async function fetchOriginRobots(origin: string, fetch: StaticFetchOptions, bounds: RobotsBounds): Promise<OriginRobots> {
  const { probe } = await fetchStatic(`${origin}/robots.txt`, { ...fetch, accept: 'text/plain,*/*;q=0.5' });
  const status = probe.status;
  if (status !== null && status >= 200 && status < 300) return { kind: 'rules', robots: parseRobotsTxt(probe.body, bounds) };
  if (status !== null && status >= 400 && status < 500) return { kind: 'allow_all' };
  return { kind: 'disallow_all', status, ...(probe.error === undefined ? {} : { error: probe.error }) };
}

export function robotsAllow(rules: OriginRobots, url: URL): boolean {
  if (rules.kind === 'allow_all') return true;
  if (rules.kind === 'disallow_all') return false;
  return isAllowed(rules.robots, CRAWLER_TOKEN, url.pathname + url.search);
}
