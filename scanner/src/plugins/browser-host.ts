import type { ScannerConfig } from '../config.js';
import { BrowserHost } from '../observe/browser-host.js';
import { sharedPlugin } from './shared-plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The warm Chromium of the rendered-page observations: launched at first use, closed with the app. */
    readonly browsers: BrowserHost;
  }
}

const LAUNCH_TIMEOUT_MS = 30_000;

/**
 * Decorates the app with `browsers` (after destinationGuardPlugin, whose guard its proxies apply). Nothing is launched
 * here, so the service starts (and serves) without Chromium.
 */
export const browserHostPlugin = sharedPlugin<{ config: ScannerConfig }>('browser-host', async (app, { config }) => {
  const browsers = new BrowserHost({ executablePath: config.chromiumPath, launchTimeoutMs: LAUNCH_TIMEOUT_MS, guard: app.destinationGuard, connectTimeoutMs: config.fetchTimeoutMs });
  app.decorate('browsers', browsers);
  app.addHook('onClose', async () => {
    await browsers.close();
  });
});
