import type { FastifyPluginAsync } from 'fastify';
import type { JudgingLimits } from '../../checks/judging-limits.js';
import { seoAudit } from '../../seo/seo-audit.js';
import { publishAssessment } from '../../observability/channels.js';
import { assessForRequest } from '../assess-for-request.js';
import { SEO_SCAN_REQUEST_SCHEMA, type SeoScanRequest } from './schema.js';

/** POST /api/seo-scan: observable SEO signals of one page, and where the keyword appears. */
export const seoScanRoutes: FastifyPluginAsync<{ limits: JudgingLimits }> = async (app, { limits }) => {
  app.post<{ Body: SeoScanRequest }>('/api/seo-scan', { schema: { body: SEO_SCAN_REQUEST_SCHEMA } }, async (request, reply) =>
    assessForRequest(app, request, reply, request.body.url, (target, snapshot) => {
      const audit = seoAudit(snapshot, { requestId: request.id, limits, ...(request.body.keyword === undefined ? {} : { keyword: request.body.keyword }) });
      publishAssessment({
        kind: 'seo-scan',
        requestId: request.id,
        target: target.origin,
        score: audit.score,
        grade: audit.grade,
        erroredChecks: audit.checks.filter((c) => c.status === 'error').map((c) => c.id),
      });
      return audit;
    }),
  );
};
