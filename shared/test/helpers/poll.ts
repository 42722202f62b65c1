import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';

// The one polling helper of the gateway's and the scanner's tests. It lives under shared/test because both
// packages' tests import it (by relative path: the workspace graph test forbids only a service reaching into the
// other service), and test-only code stays out of src/.

export interface PollOptions<T> {
  /** What the test waits for, as the timeout error names it: "timed out after 2000 ms waiting for <what>". */
  what: string;
  /** Whether the probe's value is the one waited for; by default, whether it is truthy. */
  until?: (value: T) => boolean;
  /** A liveness bound, not a timing assertion. */
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Calls `probe` until its value passes `until`, and returns that value. Past `timeoutMs` it throws, naming `what`
 * and the last value seen. A probe that throws ends the wait with its error: a failing probe is a finding, not
 * "not yet".
 */
export async function poll<T>(probe: () => T | Promise<T>, options: PollOptions<T>): Promise<T> {
  const { what, until = Boolean, timeoutMs = 10_000, intervalMs = 25 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (until(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastSeen(value)}`);
    await sleep(intervalMs);
  }
}

/** The last value, when it says more than the predicate's false. */
function lastSeen(value: unknown): string {
  if (typeof value === 'boolean' || value === undefined) return '';
  return ` (last seen: ${inspect(value, { depth: 3, breakLength: Infinity, maxArrayLength: 10, maxStringLength: 200 })})`;
}
