import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openGatewayStore, type GatewayStore } from '../../src/storage/gateway-store.js';

/**
 * A fresh gateway store (real LMDB in a temp directory) for each test that asks for one: call in the file's top
 * level, then `open()` in a test. Each one is closed and its directory removed after its test.
 */
export function tempGatewayStores(prefix: string): { open(): GatewayStore } {
  const opened: { store: GatewayStore; dir: string }[] = [];
  afterEach(async () => {
    for (const { store, dir } of opened.splice(0)) {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return {
    open() {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      const store = openGatewayStore(dir);
      opened.push({ store, dir });
      return store;
    },
  };
}
