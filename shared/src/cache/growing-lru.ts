import { LRUCache } from 'lru-cache';

const ONE = (): number => 1;

/**
 * An lru-cache bounded at `maxKeys` entries that allocates as keys arrive. Given `max`, lru-cache preallocates its
 * index arrays for that many keys (a 200,000-key table costs ~5 MiB and tens of milliseconds at start-up, before one
 * key is stored); bounding by `maxSize` with a size of 1 per entry keeps the same bound with memory that follows the
 * keys actually held (docs/benchmarks-history.md, "Start-up and memory").
 */
export function growingLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(maxKeys: number, ttlMs?: number): LRUCache<K, V> {
  if (!(maxKeys >= 1)) throw new RangeError('growingLru: maxKeys must be at least 1');
  return new LRUCache<K, V>({ maxSize: maxKeys, sizeCalculation: ONE, ...(ttlMs === undefined ? {} : { ttl: ttlMs }) });
}
