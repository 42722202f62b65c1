import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HEAP_OLD_GENERATION_MB, startModuleWorker } from './start-module-worker.js';

const HEAP_LIMIT = new URL('../../test/helpers/threads/heap-limit.js', import.meta.url);
const MIB = 1024 * 1024;

async function heapLimitOf(options: Parameters<typeof startModuleWorker>[1] = {}): Promise<number> {
  const worker = startModuleWorker(HEAP_LIMIT, options);
  const [limit] = (await once(worker, 'message')) as [number];
  await worker.terminate();
  return limit;
}

describe('worker threads of the gateway', () => {
  it("are started with their heap limited as the main thread's is, not V8's default of a quarter of the machine", async () => {
    // The limit V8 reports adds the young generation (tens of MiB) to the old generation's.
    const limit = await heapLimitOf();
    expect(limit).toBeGreaterThanOrEqual(HEAP_OLD_GENERATION_MB * MIB);
    expect(limit).toBeLessThan((HEAP_OLD_GENERATION_MB + 64) * MIB);
  });

  it('take the limits a caller gives instead', async () => {
    const limit = await heapLimitOf({ resourceLimits: { maxOldGenerationSizeMb: 96 } });
    expect(limit).toBeLessThan((96 + 64) * MIB);
  });

  it("share the limit with the main thread's flag in the service's V8 flags (gateway/package.json)", () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { aduana: { nodeFlags: string[] } };
    expect(manifest.aduana.nodeFlags).toContain(`--max-old-space-size=${HEAP_OLD_GENERATION_MB}`);
  });
});
