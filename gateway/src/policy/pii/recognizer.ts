import type { PiiEntity } from './entities.js';

/**
 * One way of finding one entity: an RE2 pattern that finds candidates, and a validator in code for what RE2 cannot
 * say (no lookaround, no backreferences): boundaries, check digits, country tables.
 *
 * Contract the scanner and the stream redactor rely on:
 * - `validate` reads the text only from `start - 4` to `end + 2` (plus, when it extends a match, the extension and
 *   two characters after it); it returns the accepted end (may be shorter than `end`, or longer when `growth` says
 *   how the match can grow), or -1 to reject.
 * - `resumeAfterReject` may skip only start positions that `validate` would reject anyway, so it is an optimisation
 *   that never changes which matches are found (and keeps adversarial inputs linear).
 * - Every pattern is bounded in length, unless `growth` gives the prefix language of what the validator can add.
 */
export interface Recognizer {
  readonly entity: PiiEntity;
  /** Short id, unique across recognizers, for tests and diagnostics. */
  readonly id: string;
  /** RE2 source (no lookaround, no backreferences, no leading/trailing context consumed). */
  readonly pattern: string;
  validate(text: string, start: number, end: number): number;
  resumeAfterReject?(text: string, start: number, end: number): number;
  /**
   * RE2 source matching every prefix of an accepted match, when the validator extends matches beyond the pattern;
   * otherwise the prefix language is derived from `pattern`.
   */
  readonly growth?: string;
  /** With `growth`: the longest match the validator can return, so a stream never holds back more than this. */
  readonly maxLength?: number;
}
