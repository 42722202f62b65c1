import { VerbatimString } from 'ioredis/built/resp/verbatim-string.js';

/**
 * ioredis declares `class VerbatimString extends String`, and V8 turns String.prototype into a dictionary-mode
 * object when a class extends String: every optimised property load on a string in the process (policy matching,
 * LMDB key encoding, msgpack) then goes through the generic LoadIC, about 6% of a decision's CPU
 * (docs/benchmarks-history.md, "Winning it back, second pass"). V8 makes the prototypes on a receiver's chain fast
 * again the first time an inline cache loads through it, so one load through a VerbatimString instance restores
 * String.prototype.
 * Called once, after ioredis is loaded; a no-op for correctness either way.
 */
export function restoreFastStringPrototype(): void {
  const probe = new VerbatimString('txt', '');
  const load = (o: { charAt: unknown }): unknown => o.charAt;
  load(probe);
  load(probe);
}
