import { describe, expect, it } from 'vitest';
import { poll } from './helpers/poll.js';

describe("poll, the tests' one polling helper", () => {
  it("returns the probe's value once it passes the check, and a predicate's true once it holds", async () => {
    let calls = 0;
    expect(await poll(() => ({ calls: ++calls }), { what: 'the third call', until: (v) => v.calls === 3, intervalMs: 1 })).toEqual({ calls: 3 });
    expect(await poll(() => ++calls === 5, { what: 'the fifth call', intervalMs: 1 })).toBe(true);
    expect(calls).toBe(5);
  });

  it('past its timeout rejects, naming what it waited for and the last value seen', async () => {
    await expect(poll(() => false, { what: 'a predicate that never holds', timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(
      'timed out after 20 ms waiting for a predicate that never holds',
    );
    await expect(poll(async () => ({ pending: 3 }), { what: 'the queue to drain', until: (s) => s.pending === 0, timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(
      'timed out after 20 ms waiting for the queue to drain (last seen: { pending: 3 })',
    );
  });

  it('a probe that throws ends the wait with its error, without trying again', async () => {
    let calls = 0;
    const probe = async (): Promise<boolean> => {
      calls++;
      throw new Error('connection refused');
    };
    await expect(poll(probe, { what: 'an answer', timeoutMs: 200 })).rejects.toThrow('connection refused');
    expect(calls).toBe(1);
  });
});
