import type { FastifyPluginAsync } from 'fastify';
import type { JudgingLimits } from '../../checks/judging-limits.js';
import { assess } from '../../assessment/assess.js';
import { publishAssessment } from '../../observability/channels.js';
import { assessForRequest } from '../assess-for-request.js';
import { SCAN_REQUEST_SCHEMA, type ScanRequest } from './schema.js';

/** POST /api/super-scan: one static assessment of a public URL (docs/decisions.md, "Endpoints"). */
export const superScanRoutes: FastifyPluginAsync<{ limits: JudgingLimits }> = async (app, { limits }) => {
  app.post<{ Body: ScanRequest }>('/api/super-scan', { schema: { body: SCAN_REQUEST_SCHEMA } }, async (request, reply) =>
    assessForRequest(app, request, reply, request.body.url, (target, snapshot) => {
      const { assessment, results } = assess(snapshot, { profile: request.body.profile ?? 'auto', requestId: request.id, limits });
      publishAssessment({
        kind: 'super-scan',
        requestId: request.id,
        target: target.origin,
        score: assessment.globalScore,
        grade: assessment.grade,
        profile: assessment.profile,
        erroredChecks: results.filter((r) => r.status === 'error').map((r) => r.check.id),
      });
      return assessment;
    }),
  );
};
