import type { FastifyPluginAsync } from 'fastify';
import { judgingLimitsOf, type ScannerConfig } from '../../config.js';
import { runRecordedAssessment } from '../../history/run-recorded-assessment.js';
import { keyOf, requireKey } from '../../keys/key-auth.js';
import { GROWTH_REQUEST_SCHEMA, landingSignals, renderGrowthReport, renderPaidMediaReport, reportTerms, type GrowthRequest, type LandingSignals, type ReportInput } from '../../report/index.js';

const REPORTS: readonly (readonly [path: string, name: string, render: (input: ReportInput) => Buffer])[] = [
  ['/api/v1/paid-media-scans', 'paid-media', renderPaidMediaReport],
  ['/api/v1/growth-scans', 'growth', renderGrowthReport],
];

/**
 * KEY: POST /api/v1/paid-media-scans and /api/v1/growth-scans (docs/scanner.md, "Reports"). Each records one
 * assessment (it counts on the key's daily quota and appears in the history) and answers the PDF built from that
 * recorded assessment; the scanId is in the PDF and in the X-Scan-Id header.
 */
export const reportRoutes: FastifyPluginAsync<{ config: ScannerConfig }> = async (app, { config }) => {
  app.addHook('onRequest', requireKey(app.store));
  const limits = judgingLimitsOf(config);

  for (const [path, name, render] of REPORTS) {
    app.post<{ Body: GrowthRequest }>(path, { schema: { body: GROWTH_REQUEST_SCHEMA } }, async (request, reply) => {
      const body = request.body;
      let signals: LandingSignals | undefined;
      const { assessment } = await runRecordedAssessment(app, config, {
        identity: keyOf(request),
        url: body.url,
        profile: 'auto',
        requestId: request.id,
        countsAgainstQuota: true,
        via: { request, reply },
        kind: 'recorded-scan',
        onSnapshot: (snapshot) => {
          signals = landingSignals(snapshot, reportTerms(body), limits);
        },
      });
      const pdf = render({ assessment, request: body, ...(signals === undefined ? {} : { signals }) });
      return reply
        .type('application/pdf')
        .header('x-scan-id', assessment.scanId)
        .header('content-disposition', `attachment; filename="${name}-${assessment.scanId}.pdf"`)
        .send(pdf);
    });
  }
};
