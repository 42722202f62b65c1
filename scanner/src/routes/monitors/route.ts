import type { FastifyPluginAsync } from 'fastify';
import type { ScannerConfig } from '../../config.js';
import { keyOf, requireKey } from '../../keys/key-auth.js';
import { claimNow, createMonitor, deactivateMonitor, monitorView, orgMonitors } from '../../monitors/monitor-store.js';
import { executeRun } from '../../monitors/run-monitor.js';
import { ScannerError } from '../../errors.js';
import { sendJsonText } from '../send-json-text.js';
import { ID_PARAMS_SCHEMA, normaliseId, type IdParams } from '../key-params.js';
import { checkTarget } from '../target.js';
import { MONITOR_CREATE_SCHEMA, type MonitorCreate } from './schema.js';

/** KEY: /api/v1/monitors (docs/scanner.md, "Monitors"). */
export const monitorRoutes: FastifyPluginAsync<{ config: ScannerConfig; now?: () => number }> = async (app, { config, now: clock = Date.now }) => {
  app.addHook('onRequest', requireKey(app.store));
  const limits = { maxPerOrg: config.maxMonitorsPerOrg, creationsPerHour: config.keyMonitorCreationsPerHour };

  app.get('/api/v1/monitors', async (request) => {
    const now = clock();
    return { items: orgMonitors(app.store, keyOf(request).orgId).map((m) => monitorView(m, now)) };
  });

  app.post<{ Body: MonitorCreate }>('/api/v1/monitors', { schema: { body: MONITOR_CREATE_SCHEMA } }, async (request, reply) => {
    const { keyId, orgId } = keyOf(request);
    // Same URL rules as an assessment (400 on a malformed URL or this service itself); destinations are vetted at each run.
    const url = checkTarget(request.body.url, app.selfIdentity).href;
    const now = clock();
    const monitor = await createMonitor(app.store, { orgId, keyId, url, profile: request.body.profile ?? 'auto', cadenceHours: request.body.cadenceHours ?? 24 }, limits, now);
    return reply.code(201).send(monitorView(monitor, now));
  });

  app.delete<{ Params: IdParams }>('/api/v1/monitors/:id', { schema: { params: ID_PARAMS_SCHEMA } }, async (request, reply) => {
    await deactivateMonitor(app.store, keyOf(request).orgId, normaliseId(request.params.id), clock());
    return reply.code(204).send();
  });

  app.post<{ Params: IdParams }>('/api/v1/monitors/:id/run', { schema: { params: ID_PARAMS_SCHEMA } }, async (request, reply) => {
    const { keyId, orgId } = keyOf(request);
    const claimed = await claimNow(app.store, orgId, normaliseId(request.params.id), app.monitorScheduler.owner, clock(), config.monitorLeaseMs);
    const recorded = await executeRun(app, { config, notifier: app.webhookNotifier, now: clock }, claimed, { request, reply, keyId });
    // A run asked for over HTTP rethrows its failure, so there is always an assessment to answer here.
    if (recorded === undefined) throw new ScannerError('internal');
    return sendJsonText(reply, recorded.json);
  });
};
