import { ConfigError, NetGuard, parseAllowList, secretBoxFrom, type AllowList, type SecretBox } from '@aduana/shared';
import { listSetting, type ScannerConfig } from '../config.js';
import { executeRun } from '../monitors/run-monitor.js';
import { MonitorScheduler } from '../monitors/scheduler.js';
import { WebhookNotifier } from '../webhooks/webhook-notifier.js';
import { sharedPlugin } from './shared-plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Vets webhook URLs and pins their deliveries (the same address rules as assessments). */
    readonly webhookGuard: NetGuard;
    /** Seals signing secrets; undefined without SCANNER_SECRET_KEY (webhook creation: 503). */
    readonly secretBox: SecretBox | undefined;
    readonly webhookNotifier: WebhookNotifier;
    readonly monitorScheduler: MonitorScheduler;
  }
}

export interface MonitoringOptions extends Record<string, unknown> {
  readonly config: ScannerConfig;
  /** Extra CAs trusted for webhook receivers (tests: a throwaway CA). */
  readonly webhookCa?: readonly string[];
  readonly userAgent: string;
  /** The service's clock (tests): what the scheduler finds due. */
  readonly now?: () => number;
}

/**
 * Monitors and webhooks as shared infrastructure: the notifier that delivers signed events and the scheduler that
 * runs due monitors. The scheduler starts once the app is ready and stops before the store closes (preClose), after
 * which pending deliveries are cut short.
 */
export const monitoringPlugin = sharedPlugin<MonitoringOptions>('monitoring', async (app, { config, webhookCa, userAgent, now = Date.now }) => {
  let allowPrivate: AllowList;
  try {
    allowPrivate = parseAllowList(listSetting(config.allowPrivate));
  } catch (err) {
    throw new ConfigError('allowPrivate', 'SCANNER_ALLOW_PRIVATE', err instanceof Error ? err.message : String(err));
  }
  const guard = new NetGuard({ allowPrivate, connect: { timeout: config.webhookTimeoutMs, ...(webhookCa === undefined ? {} : { ca: webhookCa }) } });
  const box = secretBoxFrom(config.secretKey, 'secretKey', 'SCANNER_SECRET_KEY');
  const notifier = new WebhookNotifier({
    store: app.store,
    box,
    guard,
    timeoutMs: config.webhookTimeoutMs,
    retryDelaysMs: [config.webhookRetryFirstMs, config.webhookRetrySecondMs],
    userAgent,
  });
  const scheduler = new MonitorScheduler({
    store: app.store,
    tickMs: config.schedulerTickMs,
    leaseMs: config.monitorLeaseMs,
    execute: (claimed) => executeRun(app, { config, notifier, now }, claimed),
    onError: (err) => app.log.error({ err }, 'monitor run failed'),
    now,
  });
  app.decorate('webhookGuard', guard);
  app.decorate('secretBox', box);
  app.decorate('webhookNotifier', notifier);
  app.decorate('monitorScheduler', scheduler);
  app.addHook('onReady', async () => {
    scheduler.start();
  });
  app.addHook('preClose', async () => {
    await scheduler.stop();
    await notifier.close();
    await guard.close();
  });
});
