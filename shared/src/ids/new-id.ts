import { randomBytes, randomUUID } from 'node:crypto';

const CROCKFORD = Uint8Array.from('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (c) => c.charCodeAt(0));

/**
 * The last id's time and random part, in shared memory: the threads of one process that adopt the same state
 * (`adoptIdState`) make one monotonic sequence, so an id made after another on any thread sorts after it. Layout: a
 * lock (Int32 at 0), the last millisecond (Float64 at 8), the last random part (10 bytes at 16).
 */
let state = new SharedArrayBuffer(32);
let lock = new Int32Array(state, 0, 1);
let lastMsCell = new Float64Array(state, 8, 1);
let lastRandom = new Uint8Array(state, 16, 10);
lastMsCell[0] = -1;

/** This thread's id state, to hand to a thread that starts (its `adoptIdState`). */
export function idState(): SharedArrayBuffer {
  return state;
}

/** Makes ids from another thread's state from now on (a worker, with what its creator's `idState` gave). */
export function adoptIdState(shared: SharedArrayBuffer): void {
  state = shared;
  lock = new Int32Array(state, 0, 1);
  lastMsCell = new Float64Array(state, 8, 1);
  lastRandom = new Uint8Array(state, 16, 10);
  charsMs = -1;
}

// The id's character codes: the time part is written once per millisecond, the random part on every call. The string
// is made from them in one step (building it a character at a time left ~27 intermediate strings per id).
const chars = new Uint16Array(26);
/** The millisecond whose time part `chars` holds. */
let charsMs = -1;

// Randomness comes from a pooled buffer: one randomBytes call per 409 ids instead of one per millisecond.
let pool = randomBytes(4096);
let poolOffset = 0;
function nextRandom(): void {
  if (poolOffset + 10 > pool.length) {
    pool = randomBytes(4096);
    poolOffset = 0;
  }
  lastRandom.set(pool.subarray(poolOffset, poolOffset + 10));
  poolOffset += 10;
}

/**
 * A ULID (https://github.com/ulid/spec): 48-bit milliseconds + 80 random bits, Crockford base32, 26 chars.
 * Sorts by creation time; within one millisecond the random part is incremented, so ids stay monotonic.
 * Hand-written rather than the ulid package because every request makes ids: this is 1.7 times its monotonic
 * factory's speed (docs/benchmarks-history.md, "Libraries against hand-written code").
 */
export function ulid(now = Date.now()): string {
  // Held for a few dozen operations; uncontended, one compare-exchange to take and one store to give back.
  while (Atomics.compareExchange(lock, 0, 0, 1) !== 0);
  try {
    const lastMs = lastMsCell[0] as number;
    // A thread that read the clock before another took the lock continues the other's millisecond rather than go back
    // (a time given explicitly, long before, is honoured as it was).
    if (now <= lastMs && lastMs - now < 1000) {
      now = lastMs;
      for (let i = lastRandom.length - 1; i >= 0; i--) {
        if (lastRandom[i] === 255) {
          lastRandom[i] = 0;
          continue;
        }
        lastRandom[i] = (lastRandom[i] as number) + 1;
        break;
      }
    } else {
      lastMsCell[0] = now;
      nextRandom();
    }
    if (now !== charsMs) {
      charsMs = now;
      let t = now;
      for (let i = 9; i >= 0; i--) {
        chars[i] = CROCKFORD[t % 32] as number;
        t = Math.floor(t / 32);
      }
    }
    // 80 bits -> 16 base32 chars, 5 bits at a time.
    let acc = 0;
    let bits = 0;
    let at = 10;
    for (let i = 0; i < 10; i++) {
      acc = (acc << 8) | (lastRandom[i] as number);
      bits += 8;
      while (bits >= 5) {
        chars[at++] = CROCKFORD[(acc >>> (bits - 5)) & 31] as number;
        bits -= 5;
      }
      acc &= (1 << bits) - 1;
    }
  } finally {
    Atomics.store(lock, 0, 0);
  }
  return String.fromCharCode.apply(null, chars as unknown as number[]);
}

/** A prefixed, time-sortable id: `pol_01J…`. */
export function newId(prefix: string): string {
  return `${prefix}_${ulid()}`;
}

export function uuid(): string {
  return randomUUID();
}
