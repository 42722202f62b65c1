/**
 * A least-recently-used map bounded by a key count, with an optional time to live, that grows with use.
 *
 * lru-cache allocates its index arrays for `max` entries up front: a 200,000-key window table costs ~4 MiB and tens of
 * milliseconds at start-up before a single key is stored, and a gateway builds several (per plan, per tenant). This
 * keeps entries in a Map, whose insertion order is the recency order (a read moves the key to the end; the first key
 * is the least recently used), so memory follows the keys actually held.
 */
export interface BoundedLruOptions {
  /** Keys kept at most; setting one more forgets the least recently used. */
  max: number;
  /** Milliseconds an entry stays readable after it was set (0 or absent: no expiry). */
  ttl?: number;
  now?: () => number;
}

interface Expiring<V> {
  value: V;
  expires: number;
}

export class BoundedLru<K, V> {
  readonly #max: number;
  readonly #ttl: number;
  readonly #now: () => number;
  // Values directly when there is no time to live (the common case: no wrapper object per key).
  readonly #map = new Map<K, V | Expiring<V>>();

  constructor(options: BoundedLruOptions) {
    if (!(options.max >= 1)) throw new RangeError('BoundedLru: max must be at least 1');
    this.#max = options.max;
    this.#ttl = options.ttl ?? 0;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    const stored = this.#map.get(key);
    if (stored === undefined) return undefined;
    let value: V;
    if (this.#ttl > 0) {
      const e = stored as Expiring<V>;
      if (e.expires <= this.#now()) {
        this.#map.delete(key);
        return undefined;
      }
      value = e.value;
    } else value = stored as V;
    // Most recently used goes last.
    this.#map.delete(key);
    this.#map.set(key, stored);
    return value;
  }

  has(key: K): boolean {
    const stored = this.#map.get(key);
    if (stored === undefined) return false;
    return this.#ttl === 0 || (stored as Expiring<V>).expires > this.#now();
  }

  set(key: K, value: V): this {
    const stored = this.#ttl > 0 ? { value, expires: this.#now() + this.#ttl } : value;
    if (this.#map.has(key)) this.#map.delete(key);
    else if (this.#map.size >= this.#max) {
      const oldest = this.#map.keys().next();
      if (!oldest.done) this.#map.delete(oldest.value);
    }
    this.#map.set(key, stored);
    return this;
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  clear(): void {
    this.#map.clear();
  }
}
