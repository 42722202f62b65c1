import { ConfigError, NetGuard, parseAllowList, type AllowList } from '@aduana/shared';
import { listSetting, type ScannerConfig } from '../config.js';
import { sharedPlugin } from './shared-plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The address guard of the crawl and the browser's proxies, and the pre-check of every KEY route that spends a
     * quota: private, loopback and metadata destinations refused unless SCANNER_ALLOW_PRIVATE allows them.
     */
    readonly destinationGuard: NetGuard;
  }
}

/** Decorates the app with `destinationGuard`, built once from the configuration and closed with the app. */
export const destinationGuardPlugin = sharedPlugin<{ config: ScannerConfig }>('destination-guard', async (app, { config }) => {
  let allowPrivate: AllowList;
  try {
    allowPrivate = parseAllowList(listSetting(config.allowPrivate));
  } catch (err) {
    throw new ConfigError('allowPrivate', 'SCANNER_ALLOW_PRIVATE', err instanceof Error ? err.message : String(err));
  }
  const guard = new NetGuard({ allowPrivate, connect: { timeout: config.fetchTimeoutMs } });
  app.decorate('destinationGuard', guard);
  app.addHook('onClose', async () => {
    await guard.close();
  });
});
