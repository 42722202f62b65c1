import { randomBytes } from 'node:crypto';

/**
 * The memory of one SharedTable: plain SharedArrayBuffers and numbers, so it crosses to a worker thread in
 * `workerData` or a message and every thread then works on the same bytes.
 */
export interface SharedTableMemory {
  readonly slots: number;
  /** Numbers each record holds, after the last-used time the table keeps in field 0. */
  readonly fields: number;
  /** Per slot: lock, used, hash high, hash low (Int32). */
  readonly meta: SharedArrayBuffer;
  /** Per slot: last used (ms), then `fields` numbers (Float64). */
  readonly values: SharedArrayBuffer;
  /** The hash's key, drawn once per process: a caller cannot choose keys that collide. */
  readonly seed: number;
}

const META = 4;
const LOCK = 0;
const USED = 1;
const HASH_HI = 2;
const HASH_LO = 3;
/**
 * Slots a key may live in (double hashing: from one half of its hash, in steps of the other), past which the least
 * recently used of them is taken over: with the table half full, all 16 are taken for one new key in 65,000.
 */
const PROBES = 16;

/**
 * A fixed-size hash table of numeric records in shared memory: every thread of the process that holds the same
 * memory reads and updates one record per key, under that record's lock (exact across threads, where a Map per thread
 * would count a limit once per thread).
 *
 * - **Keys** are strings, stored as a keyed 64-bit hash (the seed is the process's own): two distinct keys are taken
 *   for one with a probability of about n² / 2⁶⁵ (for 200,000 keys, 10⁻⁹).
 * - **Full** is like an LRU's full: a new key takes over the least recently used record of its slots, which then starts
 *   again from zero, unless `keep` says that record must stay (a new key then shares nothing and is refused: `-1`).
 * - **Locks** are held for a few arithmetic operations on numbers, never across a call out: a spin with Atomics is
 *   cheaper than anything that sleeps.
 */
export class SharedTable {
  readonly memory: SharedTableMemory;
  /** The records: slot `s` has its last-used time at `values[s * stride]` and its fields after it. */
  readonly values: Float64Array;
  readonly stride: number;
  /** Whether the slot the last `acquire` returned was new (its fields zero). */
  fresh = false;
  /** When the record the last `acquire` returned was used before (0 when new): for records that expire. */
  previousUse = 0;
  readonly #meta: Int32Array;
  readonly #mask: number;
  readonly #seed: number;
  /** The last key's hashes (#hash): no allocation per call. */
  #hi = 0;
  #lo = 0;

  /** A new table of at least `slots` records (rounded up to a power of two) of `fields` numbers each. */
  static create(slots: number, fields: number): SharedTableMemory {
    let size = PROBES;
    while (size < slots) size *= 2;
    return {
      slots: size,
      fields,
      meta: new SharedArrayBuffer(size * META * 4),
      values: new SharedArrayBuffer(size * (fields + 1) * 8),
      seed: randomBytes(4).readInt32LE(0),
    };
  }

  constructor(memory: SharedTableMemory) {
    this.memory = memory;
    this.#meta = new Int32Array(memory.meta);
    this.values = new Float64Array(memory.values);
    this.stride = memory.fields + 1;
    this.#mask = memory.slots - 1;
    this.#seed = memory.seed;
  }

  /**
   * Finds or claims the record of `key` within `scope` (a tenant, a plan; the pair is the key, hashed as one without
   * building it) and locks it: the caller reads and writes `values[slot * stride + 1 ...]`, then calls `release(slot)`
   * (in a `finally`). `fresh` tells whether the record is new. Returns -1 when the table has no room for the key (every
   * slot it may take is one `keep` holds).
   */
  acquire(scope: string, key: string, now: number, keep?: (slot: number) => boolean): number {
    this.#hash(scope, key);
    const hi = this.#hi;
    const lo = this.#lo;
    const meta = this.#meta;
    const start = hi & this.#mask;
    // Odd, so the steps visit distinct slots of a power-of-two table.
    const step = lo | 1;
    for (let p = 0; p < PROBES; p++) {
      const slot = (start + p * step) & this.#mask;
      const at = slot * META;
      if (Atomics.load(meta, at + USED) === 1) {
        if (this.#lockIfHeld(at, hi, lo)) return this.#use(slot, now, false);
        continue;
      }
      this.#lock(at);
      if (Atomics.load(meta, at + USED) === 0) {
        meta[at + HASH_HI] = hi;
        meta[at + HASH_LO] = lo;
        Atomics.store(meta, at + USED, 1);
        return this.#use(slot, now, true);
      }
      // Claimed by another thread meanwhile: for this key, or look on.
      if (meta[at + HASH_HI] === hi && meta[at + HASH_LO] === lo) return this.#use(slot, now, false);
      this.#unlock(at);
    }
    // Every slot is some other key's: take over the least recently used that may go.
    let victim = -1;
    let oldest = Infinity;
    for (let p = 0; p < PROBES; p++) {
      const slot = (start + p * step) & this.#mask;
      const used = this.values[slot * this.stride] as number;
      if (used < oldest && !(keep?.(slot) ?? false)) {
        oldest = used;
        victim = slot;
      }
    }
    if (victim === -1) return -1;
    const at = victim * META;
    this.#lock(at);
    if (meta[at + HASH_HI] === hi && meta[at + HASH_LO] === lo) return this.#use(victim, now, false);
    if (keep?.(victim) ?? false) {
      this.#unlock(at);
      return -1;
    }
    meta[at + HASH_HI] = hi;
    meta[at + HASH_LO] = lo;
    this.values.fill(0, victim * this.stride, (victim + 1) * this.stride);
    return this.#use(victim, now, true);
  }

  /**
   * The record of `key` if the table has one, locked (release it as `acquire`'s), without claiming one for it: -1 when
   * there is none.
   */
  find(scope: string, key: string): number {
    this.#hash(scope, key);
    const hi = this.#hi;
    const lo = this.#lo;
    const meta = this.#meta;
    const start = hi & this.#mask;
    const step = lo | 1;
    for (let p = 0; p < PROBES; p++) {
      const slot = (start + p * step) & this.#mask;
      const at = slot * META;
      if (Atomics.load(meta, at + USED) === 0) return -1;
      if (this.#lockIfHeld(at, hi, lo)) return slot;
    }
    return -1;
  }

  /** Locks the slot at `at` if it holds the key of these hashes (checked again once locked: it may have been taken over). */
  #lockIfHeld(at: number, hi: number, lo: number): boolean {
    const meta = this.#meta;
    if (meta[at + HASH_HI] !== hi || meta[at + HASH_LO] !== lo) return false;
    this.#lock(at);
    if (meta[at + HASH_HI] === hi && meta[at + HASH_LO] === lo) return true;
    this.#unlock(at);
    return false;
  }

  /**
   * The two 32-bit hashes of `scope`, a NUL, then `key`, seeded with the process's seed (left in #hi and #lo): the
   * strings are read where they are, never joined, so a lookup allocates nothing.
   */
  #hash(scope: string, key: string): void {
    let hi = this.#seed ^ 0x811c9dc5;
    let lo = Math.imul(this.#seed, 0x9e3779b1) ^ 0x5bd1e995;
    for (let i = 0; i <= scope.length + key.length; i++) {
      const c = i < scope.length ? scope.charCodeAt(i) : i === scope.length ? 0 : key.charCodeAt(i - scope.length - 1);
      hi = Math.imul(hi ^ c, 0x01000193);
      lo = Math.imul(lo ^ c, 0x5bd1e995) ^ (lo >>> 15);
    }
    this.#hi = fmix(hi);
    this.#lo = fmix(lo ^ (scope.length + key.length));
  }

  /** Unlocks a record `acquire` returned. */
  release(slot: number): void {
    this.#unlock(slot * META);
  }

  #use(slot: number, now: number, fresh: boolean): number {
    this.fresh = fresh;
    this.previousUse = fresh ? 0 : (this.values[slot * this.stride] as number);
    this.values[slot * this.stride] = now;
    return slot;
  }

  // A futex-style lock: 0 free, 1 held, 2 held with a thread waiting. Uncontended, a lock and an unlock are one
  // compare-exchange each; only a thread that found it held sleeps, and only then is anyone woken.
  #lock(at: number): void {
    const meta = this.#meta;
    if (Atomics.compareExchange(meta, at + LOCK, 0, 1) === 0) return;
    while (Atomics.exchange(meta, at + LOCK, 2) !== 0) Atomics.wait(meta, at + LOCK, 2);
  }

  #unlock(at: number): void {
    if (Atomics.exchange(this.#meta, at + LOCK, 0) === 2) Atomics.notify(this.#meta, at + LOCK, 1);
  }
}

/** Murmur3's finaliser: every input bit moves every output bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
