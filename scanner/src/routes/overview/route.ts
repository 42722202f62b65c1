import type { FastifyPluginAsync } from 'fastify';
import type { ScannerConfig } from '../../config.js';
import { listHistory, readAfterWrites, scanCount } from '../../history/scan-history.js';
import { keyOf, requireKey } from '../../keys/key-auth.js';
import { orgMonitors, recentRuns } from '../../monitors/monitor-store.js';
import { orgWebhooks } from '../../webhooks/webhook-store.js';

/** KEY: GET /api/v1/overview: the organisation at a glance (docs/scanner.md, "Overview"). */
export const overviewRoutes: FastifyPluginAsync<{ config: ScannerConfig }> = async (app, { config }) => {
  app.addHook('onRequest', requireKey(app.store));

  app.get('/api/v1/overview', async (request) => {
    const { orgId } = keyOf(request);
    await readAfterWrites(app.store);
    const monitors = orgMonitors(app.store, orgId);
    const webhooks = orgWebhooks(app.store, orgId);
    const activeMonitors = monitors.filter((m) => m.active).length;
    const activeWebhooks = webhooks.filter((w) => w.active).length;
    return {
      scans: scanCount(app.store, orgId),
      monitors: { total: monitors.length, active: activeMonitors, inactive: monitors.length - activeMonitors },
      webhooks: { total: webhooks.length, active: activeWebhooks, inactive: webhooks.length - activeWebhooks },
      recentExecutions: listHistory(app.store, orgId, config.overviewRecent),
      recentMonitorRuns: recentRuns(app.store, orgId, config.overviewRecent).map((r) => ({
        runId: r.id,
        monitorId: r.monitorId,
        trigger: r.trigger,
        status: r.status,
        startedAt: r.startedAt,
        finishedAt: r.finishedAt,
        scanId: r.scanId,
        error: r.error,
      })),
    };
  });
};
