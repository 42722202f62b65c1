import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  TokenBuckets,
  canonicalJson,
  formatTraceparent,
  generateToken,
  hashToken,
  hashesEqual,
  isWellFormedToken,
  loadConfig,
  parseTraceparent,
  sha256Hex,
  traceFrom,
} from '@aduana/shared';

describe('tokens', () => {
  it('have the prefix, length and a checksum that detects a typo', () => {
    const t = generateToken('pat');
    expect(t).toMatch(/^adu_pat_[0-9A-Za-z]{36}$/);
    expect(isWellFormedToken(t, 'pat')).toBe(true);
    expect(isWellFormedToken(t, 'sk')).toBe(false);
    const last = t.at(-1) === 'a' ? 'b' : 'a';
    expect(isWellFormedToken(t.slice(0, -1) + last, 'pat')).toBe(false);
    const flipped = t.slice(0, 10) + (t[10] === 'x' ? 'y' : 'x') + t.slice(11);
    expect(isWellFormedToken(flipped, 'pat')).toBe(false);
  });
  it('are unique and hash to comparable digests', () => {
    const seen = new Set(Array.from({ length: 1000 }, () => generateToken('sk')));
    expect(seen.size).toBe(1000);
    const t = generateToken('ses');
    expect(hashesEqual(hashToken(t), hashToken(t))).toBe(true);
    expect(hashesEqual(hashToken(t), hashToken(generateToken('ses')))).toBe(false);
    expect(hashToken(t)).not.toContain(t.slice(8));
  });
});

describe('token buckets', () => {
  it('allow the burst, then refuse with an integer Retry-After, then refill', () => {
    let now = 0;
    const b = new TokenBuckets({ capacity: 10, refillPerSecond: 1 }, () => now);
    for (let i = 0; i < 10; i++) expect(b.take('t').allowed).toBe(true);
    const refused = b.take('t');
    expect(refused.allowed).toBe(false);
    expect(Number.isInteger(refused.retryAfterS)).toBe(true);
    expect(refused.retryAfterS).toBeGreaterThanOrEqual(1);
    expect(b.take('other').allowed).toBe(true);
    now += 1000;
    expect(b.take('t').allowed).toBe(true);
    expect(b.take('t').allowed).toBe(false);
  });
  it('never limits an unlimited plan', () => {
    const b = new TokenBuckets({ capacity: Infinity, refillPerSecond: Infinity });
    for (let i = 0; i < 10_000; i++) expect(b.take('t').allowed).toBe(true);
  });
});

describe('trace context', () => {
  it('continues a valid traceparent with a new span', () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const ctx = parseTraceparent(tp);
    expect(ctx?.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(ctx?.parentId).toBe('00f067aa0ba902b7');
    expect(formatTraceparent(ctx!)).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(formatTraceparent(ctx!)).not.toContain('00f067aa0ba902b7');
  });
  it('rejects malformed or all-zero ids and starts a new trace', () => {
    for (const bad of [
      'garbage',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01',
    ]) {
      expect(parseTraceparent(bad)).toBeUndefined();
    }
    expect(traceFrom(undefined).traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('canonical JSON (RFC 8785)', () => {
  it('sorts keys, normalises numbers and escapes as the RFC says', () => {
    expect(canonicalJson({ b: 1, a: [1e21, 0.1, -0], c: 'é\u2028' })).toBe('{"a":[1e+21,0.1,0],"b":1,"c":"é\u2028"}');
    expect(canonicalJson({ '\u20ac': 1, '\r': 2, '1': 3 })).toBe('{"\\r":2,"1":3,"€":1}');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('config', () => {
  const spec = {
    port: { env: 'T_PORT', type: 'integer', default: 8080, minimum: 0, maximum: 65535, description: 'port' },
    host: { env: 'T_HOST', type: 'string', default: '127.0.0.1', description: 'host' },
    strict: { env: 'T_STRICT', type: 'boolean', default: false, description: 'strict' },
  } as const;
  it('applies defaults and coerces env strings', () => {
    expect(loadConfig(spec, {})).toEqual({ port: 8080, host: '127.0.0.1', strict: false });
    expect(loadConfig(spec, { T_PORT: '9000', T_STRICT: 'true' })).toMatchObject({ port: 9000, strict: true });
  });
  it('stops with an error naming the key and env variable', () => {
    expect(() => loadConfig(spec, { T_PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig(spec, { T_PORT: '70000' })).toThrow(/port \(T_PORT\)/);
  });
});

describe('ids', () => {
  it('are time-ordered ULIDs, unique and monotonic within a millisecond', async () => {
    const { ulid, newId } = await import('@aduana/shared');
    const ids = Array.from({ length: 5000 }, () => ulid(1_700_000_000_000));
    expect(new Set(ids).size).toBe(5000);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(ulid(1_700_000_000_001) > ids[4999]!).toBe(true);
    expect(newId('dec')).toMatch(/^dec_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('encode the millisecond in the first 10 characters, and count up by one within it', async () => {
    const { ulid } = await import('@aduana/shared');
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const decode = (text: string) => [...text].reduce((n, c) => n * 32n + BigInt(alphabet.indexOf(c)), 0n);
    for (const ms of [0, 1, 31, 32, 1_700_000_000_000, 2 ** 48 - 1]) {
      const [a, b] = [ulid(ms), ulid(ms)];
      expect(a.slice(0, 10)).toBe(ms.toString(32).padStart(10, '0').replace(/./g, (d) => alphabet[parseInt(d, 32)]!));
      expect(b.slice(0, 10)).toBe(a.slice(0, 10));
      // A random part just before the 80-bit ceiling would wrap; any other counts up by exactly one.
      if (decode(a.slice(10)) < 2n ** 80n - 1n) expect(decode(b.slice(10))).toBe(decode(a.slice(10)) + 1n);
    }
  });
});
