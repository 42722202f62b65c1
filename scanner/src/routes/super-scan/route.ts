import type { FastifyPluginAsync } from 'fastify';
import { assess } from '../../assessment/assess.js';
import { checkTarget } from '../target.js';
import { SCAN_REQUEST_SCHEMA, type ScanRequest } from './schema.js';

/** POST /api/super-scan: one static assessment of a public URL (spec "Endpoints"). */
export const superScanRoutes: FastifyPluginAsync = async (app) => {
  app.post<{ Body: ScanRequest }>('/api/super-scan', { schema: { body: SCAN_REQUEST_SCHEMA } }, async (request) => {
    const target = checkTarget(request.body.url, app.selfIdentity);
    app.rateLimits.take(request.ip, target.hostname);
    const snapshot = await app.snapshots.collect(target.href);
    const { assessment, results } = assess(snapshot, { profile: request.body.profile ?? 'auto', requestId: request.id });
    const errored = results.filter((r) => r.status === 'error');
    // Origin only: a query string may carry someone's token.
    request.log.info(
      { target: target.origin, scanId: assessment.scanId, score: assessment.globalScore, grade: assessment.grade, profile: assessment.profile, errored: errored.map((r) => r.check.id) },
      'assessment done',
    );
    return assessment;
  });
};
