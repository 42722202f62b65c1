import type { ScannerConfig } from '../config.js';
import { bootstrapStore } from '../keys/bootstrap.js';
import { createKeyQuota, type KeyQuota } from '../quota/key-quota.js';
import { openScannerStore, type ScannerStore } from '../storage/scanner-store.js';
import { sharedPlugin } from './shared-plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    readonly store: ScannerStore;
    readonly quota: KeyQuota;
    /** The key made by this start on an empty data directory (printed once by the CLI); undefined otherwise. */
    readonly bootstrapKey: string | undefined;
  }
}

/**
 * Decorates the app with the scanner's LMDB store (DATA_DIR/scanner) and the key quota over it. The first start of
 * an empty data directory creates organisation `default` and its first key (docs/scanner.md, "Keys").
 */
export const scannerStorePlugin = sharedPlugin<{ config: ScannerConfig; now?: () => number }>('scanner-store', async (app, { config, now }) => {
  const store = openScannerStore(config.dataDir);
  app.decorate('store', store);
  app.decorate('quota', createKeyQuota(store, config, now));
  app.decorate('bootstrapKey', await bootstrapStore(store, config.dataDir));
  app.decorateRequest('apiKey', null);
  // Last: the scheduler and deliveries stop first (their own onClose hooks run before this one is reached).
  app.addHook('onClose', async () => {
    await store.close();
  });
});
