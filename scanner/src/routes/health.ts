import type { FastifyPluginAsync } from 'fastify';
import { SCORING_VERSION } from '../scoring/scoring.js';

/** GET /healthz: the process answers (200; docs/scanner.md). */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get('/healthz', async () => ({ status: 'ok', service: 'scanner', scoringVersion: SCORING_VERSION }));
};
