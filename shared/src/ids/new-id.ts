import { randomBytes, randomUUID } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let lastMs = -1;
let lastRandom: Uint8Array = new Uint8Array(10);

// Randomness comes from a pooled buffer: one randomBytes call per 409 ids instead of one per millisecond.
let pool = randomBytes(4096);
let poolOffset = 0;
function random10(): Uint8Array {
  if (poolOffset + 10 > pool.length) {
    pool = randomBytes(4096);
    poolOffset = 0;
  }
  const out = new Uint8Array(pool.subarray(poolOffset, poolOffset + 10));
  poolOffset += 10;
  return out;
}

/**
 * A ULID (https://github.com/ulid/spec): 48-bit milliseconds + 80 random bits, Crockford base32, 26 chars.
 * Sorts by creation time; within one millisecond the random part is incremented, so ids stay monotonic.
 */
export function ulid(now = Date.now()): string {
  if (now === lastMs) {
    for (let i = lastRandom.length - 1; i >= 0; i--) {
      if (lastRandom[i] === 255) {
        lastRandom[i] = 0;
        continue;
      }
      lastRandom[i] = (lastRandom[i] as number) + 1;
      break;
    }
  } else {
    lastMs = now;
    lastRandom = random10();
  }
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let rand = '';
  // 80 bits -> 16 base32 chars, 5 bits at a time.
  let acc = 0;
  let bits = 0;
  for (const byte of lastRandom) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      rand += CROCKFORD[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return time + rand;
}

/** A prefixed, time-sortable id: `pol_01J…`. */
export function newId(prefix: string): string {
  return `${prefix}_${ulid()}`;
}

export function uuid(): string {
  return randomUUID();
}
