import type { FastifyPluginAsync } from 'fastify';
import { seoAudit } from '../../seo/seo-audit.js';
import { checkTarget } from '../target.js';
import { SEO_SCAN_REQUEST_SCHEMA, type SeoScanRequest } from './schema.js';

/** POST /api/seo-scan: observable SEO signals of one page, and where the keyword appears. */
export const seoScanRoutes: FastifyPluginAsync = async (app) => {
  app.post<{ Body: SeoScanRequest }>('/api/seo-scan', { schema: { body: SEO_SCAN_REQUEST_SCHEMA } }, async (request) => {
    const target = checkTarget(request.body.url, app.selfIdentity);
    app.rateLimits.take(request.ip, target.hostname);
    const snapshot = await app.snapshots.collect(target.href);
    const audit = seoAudit(snapshot, { requestId: request.id, ...(request.body.keyword === undefined ? {} : { keyword: request.body.keyword }) });
    request.log.info({ target: target.origin, score: audit.score }, 'seo audit done');
    return audit;
  });
};
