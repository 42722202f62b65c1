import { parentPort, workerData } from 'node:worker_threads';
import { SharedTable, type SharedTableMemory } from '../../../src/platform/shared-table.js';

/** A thread that adds 1 to each key's first field, `rounds` times over, as fast as it can. */
const { memory, keys, rounds } = workerData as { memory: SharedTableMemory; keys: string[]; rounds: number };
const table = new SharedTable(memory);
for (let r = 0; r < rounds; r++) {
  for (const key of keys) {
    const slot = table.acquire('tenant', key, 1 + r);
    table.values[slot * table.stride + 1]! += 1;
    table.release(slot);
  }
}
parentPort?.postMessage('done');
