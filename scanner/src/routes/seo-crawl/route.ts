import type { FastifyPluginAsync } from 'fastify';
import type { ScannerConfig } from '../../config.js';
import { CRAWL_REQUEST_SCHEMA, crawlDepsOf, crawlSite, type CrawlRequest } from '../../crawl/index.js';
import { keyOf, requireKey } from '../../keys/key-auth.js';
import { whileClientWaits } from '../client-gone.js';
import { checkTarget } from '../target.js';
import { refuseBlockedDestination } from '../vet-destination.js';

const DEFAULT_PAGES = 5;

/**
 * KEY: POST /api/v1/seo-crawl (docs/scanner.md, "SEO crawl"). The URL is checked (400) before a unit of the key's
 * hourly `crawls` bucket is spent (429 once used up); the crawl holds a slot among the work in flight, and stops when
 * the client goes away.
 */
export const seoCrawlRoutes: FastifyPluginAsync<{ config: ScannerConfig }> = async (app, { config }) => {
  app.addHook('onRequest', requireKey(app.store));

  app.post<{ Body: CrawlRequest }>('/api/v1/seo-crawl', { schema: { body: CRAWL_REQUEST_SCHEMA } }, async (request, reply) => {
    const target = checkTarget(request.body.url, app.selfIdentity);
    await refuseBlockedDestination(app.destinationGuard, target);
    await app.quota.take(keyOf(request).keyId, 'crawls');
    const release = app.inFlight.acquire();
    const client = whileClientWaits(reply);
    try {
      return await crawlSite(target.href, { maxPages: request.body.maxPages ?? DEFAULT_PAGES }, crawlDepsOf(config, app.destinationGuard, client.signal));
    } finally {
      client.done();
      release();
    }
  });
};
