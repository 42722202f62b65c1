import type { Probe } from '../snapshot/snapshot.js';
import type { AnyCollector, CollectContext } from './collector.js';
import { probeHttpsRedirect } from './https-redirect-probe.js';
import { fetchStatic } from './fetch-static.js';
import { httpsFormActions, manifestUrl, robotsSitemapUrl } from './page-links.js';
import { probeTls } from './tls-probe.js';

const ACCEPT = {
  text: 'text/plain,*/*;q=0.8',
  markdownOrText: 'text/markdown,text/plain;q=0.9,*/*;q=0.8',
  json: 'application/json,*/*;q=0.8',
  apiCatalog: 'application/linkset+json,application/json;q=0.9,*/*;q=0.8',
  manifest: 'application/manifest+json,application/json;q=0.9,*/*;q=0.8',
  xml: 'application/xml,text/xml;q=0.9,*/*;q=0.8',
  markdown: 'text/markdown',
} as const;

/** Form actions asked where they lead, per page: a shop's page has a handful of forms (search, newsletter, cart). */
const MAX_FORM_ACTIONS = 5;

const OPENAPI_PATHS = ['/openapi.json', '/swagger.json', '/.well-known/openapi.json'] as const;

/** A same-origin file of the page's origin, asked for with this Accept. */
function wellKnown(path: string, accept: string): (c: CollectContext) => Promise<Probe> {
  return (c) => c.get(c.at(path), accept);
}

/**
 * Every collector that runs once the page answered, keyed by the snapshot part it fills. They all start at once, in
 * this order (the order their requests queue on the origin's connections); one that needs another's part awaits it.
 * Adding a part is adding a field to the Snapshot and a line here.
 */
export const COLLECTORS: readonly AnyCollector[] = Object.freeze([
  {
    // Only an HTTPS page's https actions: an http:// action is judged from the markup alone.
    part: 'formActions',
    collect: async (c) => {
      if (!c.page.finalUrl.startsWith('https://') || !c.page.contentType.includes('html')) return [];
      const actions = httpsFormActions(c.page.body, c.page.finalUrl, MAX_FORM_ACTIONS);
      return Promise.all(
        actions.map(async (url) => {
          const { probe } = await fetchStatic(url, { ...c.resource, maxRedirects: 0 });
          let location: string | null = null;
          if (probe.status !== null && probe.status >= 300 && probe.status < 400 && probe.headers.location !== undefined) {
            try {
              location = new URL(probe.headers.location, url).href;
            } catch {
              location = null;
            }
          }
          return { url, status: probe.status, location, ...(probe.error === undefined ? {} : { error: probe.error }) };
        }),
      );
    },
  },
  { part: 'robotsTxt', collect: wellKnown('/robots.txt', ACCEPT.text) },
  {
    // robots.txt first, because its first `Sitemap:` line names the sitemap; /sitemap.xml otherwise.
    part: 'sitemapXml',
    collect: async (c) => {
      const robotsUrl = c.at('/robots.txt');
      const robots = await c.part('robotsTxt');
      const named = robots?.status === 200 ? robotsSitemapUrl(robots.body, robotsUrl) : undefined;
      return c.get(named ?? c.at('/sitemap.xml'), ACCEPT.xml);
    },
  },
  { part: 'securityTxt', collect: wellKnown('/.well-known/security.txt', ACCEPT.text) },
  { part: 'llmsTxt', collect: wellKnown('/llms.txt', ACCEPT.markdownOrText) },
  {
    part: 'manifest',
    collect: async (c) => {
      const url = c.page.contentType.includes('html') ? manifestUrl(c.page.body, c.page.finalUrl) : undefined;
      return url === undefined ? undefined : c.get(url, ACCEPT.manifest);
    },
  },
  { part: 'apiCatalog', collect: wellKnown('/.well-known/api-catalog', ACCEPT.apiCatalog) },
  { part: 'oauthAuthorizationServer', collect: wellKnown('/.well-known/oauth-authorization-server', ACCEPT.json) },
  { part: 'oauthProtectedResource', collect: wellKnown('/.well-known/oauth-protected-resource', ACCEPT.json) },
  { part: 'mcpServerCard', collect: wellKnown('/.well-known/mcp.json', ACCEPT.json) },
  { part: 'agentCard', collect: wellKnown('/.well-known/agent-card.json', ACCEPT.json) },
  {
    // Every candidate asked at once; the first in order that answered 200 wins, else the first candidate's answer.
    part: 'openapi',
    collect: async (c) => {
      const probes = await Promise.all(OPENAPI_PATHS.map((p) => c.get(c.at(p), ACCEPT.json)));
      return probes.find((p) => p.status === 200) ?? (probes[0] as Probe);
    },
  },
  { part: 'markdownNegotiation', collect: (c) => c.get(c.page.finalUrl, ACCEPT.markdown) },
  {
    part: 'tls',
    collect: async (c) =>
      c.tlsUrl === undefined ? undefined : probeTls(c.tlsUrl, { guard: c.guard, timeoutMs: c.resource.timeoutMs, ...pick(c, 'ca', 'signal') }),
  },
  {
    part: 'httpsRedirect',
    collect: async (c) => (c.tlsUrl === undefined ? undefined : probeHttpsRedirect(c.tlsUrl, { ...c.resource, ...pick(c, 'httpPort') })),
  },
]);

type CollectOptions = CollectContext['options'];

function pick<K extends keyof CollectOptions>(c: CollectContext, ...keys: K[]): Partial<Pick<CollectOptions, K>> {
  const out: Partial<Pick<CollectOptions, K>> = {};
  for (const key of keys) if (c.options[key] !== undefined) out[key] = c.options[key];
  return out;
}
