import type { FastifyPluginAsync } from 'fastify';
import { SCORING_VERSION } from '../scoring/scoring.js';

/** GET /healthz, and GET /health as the gateway spells it: the process answers (200; docs/scanner.md). */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  const health = async () => ({ status: 'ok', service: 'scanner', scoringVersion: SCORING_VERSION });
  app.get('/healthz', health);
  app.get('/health', health);
};
