import type { FastifyPluginAsync } from 'fastify';
import type { ScannerConfig } from '../../config.js';
import { ScannerError } from '../../errors.js';
import { getScanJson, listHistory, readAfterWrites } from '../../history/scan-history.js';
import { runRecordedAssessment } from '../../history/run-recorded-assessment.js';
import { keyOf, requireKey } from '../../keys/key-auth.js';
import { sendJsonText } from '../send-json-text.js';
import { ID_PARAMS_SCHEMA, LIMIT_QUERY_SCHEMA, listLimit, normaliseId, type IdParams, type LimitQuery } from '../key-params.js';
import { SCAN_REQUEST_SCHEMA, type ScanRequest } from '../super-scan/schema.js';

/** History lists: 1 to 100 items, 20 by default (docs/scanner.md, "History"). */
const HISTORY_DEFAULT = 20;
const HISTORY_MAX = 100;

/** KEY: POST /api/v1/scans (a recorded assessment), GET /api/v1/scans (history), GET /api/v1/scans/{id}. */
export const scanRoutes: FastifyPluginAsync<{ config: ScannerConfig }> = async (app, { config }) => {
  app.addHook('onRequest', requireKey(app.store));

  app.post<{ Body: ScanRequest }>('/api/v1/scans', { schema: { body: SCAN_REQUEST_SCHEMA } }, async (request, reply) => {
    const { json } = await runRecordedAssessment(app, config, {
      identity: keyOf(request),
      url: request.body.url,
      profile: request.body.profile ?? 'auto',
      requestId: request.id,
      countsAgainstQuota: true,
      via: { request, reply },
      kind: 'recorded-scan',
    });
    return sendJsonText(reply, json);
  });

  app.get<{ Querystring: LimitQuery }>('/api/v1/scans', { schema: { querystring: LIMIT_QUERY_SCHEMA } }, async (request) => {
    const limit = listLimit(request.query, HISTORY_DEFAULT, HISTORY_MAX);
    await readAfterWrites(app.store);
    return { items: listHistory(app.store, keyOf(request).orgId, limit) };
  });

  app.get<{ Params: IdParams }>('/api/v1/scans/:id', { schema: { params: ID_PARAMS_SCHEMA } }, async (request, reply) => {
    await readAfterWrites(app.store);
    const json = getScanJson(app.store, keyOf(request).orgId, normaliseId(request.params.id));
    if (json === undefined) throw new ScannerError('scan_not_found');
    return sendJsonText(reply, json);
  });
};
