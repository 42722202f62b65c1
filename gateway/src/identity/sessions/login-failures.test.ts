import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors.js';
import { LoginFailures } from './login-failures.js';

const limits = { perSource: 20, perAccount: 5, windowMs: 900_000, slowdownMaxMs: 60_000 };

function retryAfter(fn: () => unknown): number {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'login_throttled') return Number(err.headers?.['retry-after']);
    throw err;
  }
  return 0;
}

describe('failed-login counts', () => {
  it("past the per-account limit strangers wait 1 s, 2 s, 4 s … up to the cap between attempts; the window's end forgets", () => {
    let now = 1_000_000;
    const f = new LoginFailures(limits, () => now);
    for (let i = 0; i < 5; i++) f.reserve('v@x.example', `10.0.0.${i}`, '');
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      const wait = retryAfter(() => f.reserve('v@x.example', `10.0.1.${i}`, ''));
      waits.push(wait);
      now += wait * 1000;
      expect(retryAfter(() => f.reserve('v@x.example', `10.0.1.${i}`, ''))).toBe(0);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
    now += limits.windowMs;
    for (let i = 0; i < 5; i++) expect(retryAfter(() => f.reserve('v@x.example', `10.0.2.${i}`, ''))).toBe(0);
  });

  it("a device cookie's failures are its own: they neither slow the account nor spend the address", () => {
    const f = new LoginFailures(limits, () => 1_000_000);
    for (let i = 0; i < 5; i++) f.reserve('d@x.example', '10.0.0.1', 'nonce-1');
    expect(retryAfter(() => f.reserve('d@x.example', '10.0.0.1', 'nonce-1'))).toBe(900);
    expect(retryAfter(() => f.reserve('d@x.example', '10.0.0.1', 'nonce-2'))).toBe(0);
    expect(retryAfter(() => f.reserve('d@x.example', '10.0.0.1', ''))).toBe(0);
    expect(f.failuresOf('d@x.example', '10.0.0.1')).toBe(1);
  });

  it('a right password gives its attempt back: the pair is cleared, the account and the source lose one', () => {
    const f = new LoginFailures({ ...limits, perSource: 6 }, () => 1_000_000);
    for (let i = 0; i < 4; i++) f.reserve('r@x.example', '10.0.0.1', '');
    f.succeeded(f.reserve('r@x.example', '10.0.0.1', ''));
    expect(f.failuresOf('r@x.example', '10.0.0.1')).toBe(0);
    // Four failures left on the account: the next one is the fifth, and only then is it slowed down.
    expect(retryAfter(() => f.reserve('r@x.example', '10.0.0.2', ''))).toBe(0);
    expect(retryAfter(() => f.reserve('r@x.example', '10.0.0.3', ''))).toBe(1);
    // The source: four failures of its six (the right password's attempt given back), then two more.
    f.reserve('other@x.example', '10.0.0.1', '');
    expect(retryAfter(() => f.reserve('another@x.example', '10.0.0.1', ''))).toBe(0);
    expect(retryAfter(() => f.reserve('third@x.example', '10.0.0.1', ''))).toBe(900);
  });

  it('IPv6 addresses of one /64 spend one budget', () => {
    const f = new LoginFailures({ ...limits, perSource: 3 }, () => 1_000_000);
    for (let i = 1; i <= 3; i++) f.reserve(`u${i}@x.example`, `2001:0db8:0000:0001:0000:0000:0000:000${i}`, '');
    expect(retryAfter(() => f.reserve('u9@x.example', '2001:db8:0:1:ffff::9', ''))).toBe(900);
    expect(retryAfter(() => f.reserve('u9@x.example', '2001:db8:0:2::9', ''))).toBe(0);
  });
});
