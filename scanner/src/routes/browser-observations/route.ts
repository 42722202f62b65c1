import type { FastifyPluginAsync } from 'fastify';
import type { ScannerConfig } from '../../config.js';
import { keyOf, requireKey } from '../../keys/key-auth.js';
import { observeDepsOf, observePage } from '../../observe/index.js';
import { whileClientWaits } from '../client-gone.js';
import { SCAN_REQUEST_SCHEMA, type ScanRequest } from '../super-scan/schema.js';
import { checkTarget } from '../target.js';
import { refuseBlockedDestination } from '../vet-destination.js';

/**
 * KEY: POST /api/v1/browser-observations (docs/scanner.md, "Rendered-page observation"). The URL is checked (400)
 * before a unit of the key's hourly `renderings` bucket is spent (429 once used up). The observation is recorded
 * nowhere and never changes an assessment's score; `profile` is accepted (ScanRequest) and has no effect on it.
 */
export const browserObservationRoutes: FastifyPluginAsync<{ config: ScannerConfig }> = async (app, { config }) => {
  app.addHook('onRequest', requireKey(app.store));

  app.post<{ Body: ScanRequest }>('/api/v1/browser-observations', { schema: { body: SCAN_REQUEST_SCHEMA } }, async (request, reply) => {
    const target = checkTarget(request.body.url, app.selfIdentity);
    await refuseBlockedDestination(app.destinationGuard, target);
    await app.quota.take(keyOf(request).keyId, 'renderings');
    const release = app.inFlight.acquire();
    const client = whileClientWaits(reply);
    try {
      return await observePage(target.href, observeDepsOf(config, app.browsers, client.signal));
    } finally {
      client.done();
      release();
    }
  });
};
