/**
 * One piece of an answer as the response stages see it: a whole JSON answer is one piece (`whole`), a stream gives one
 * per event. Stages read and rewrite `body` in place and leave what they found here for the stages after them.
 */
export class AnswerPiece {
  /** Rewritten by a stage: the relay must serialise `body` again rather than pass the upstream's bytes on. */
  changed = false;
  /** Not relayed (a usage-only event the client did not ask for). Stages after the one that dropped it do not run. */
  dropped = false;
  /** The text this piece adds to the answer, as the client will read it (after redaction), events before it included. */
  text = '';
  /** Events a stage put before this one (held text whose ending event cannot carry it), relayed first. */
  before: Record<string, unknown>[] | null = null;

  constructor(
    readonly body: Record<string, unknown>,
    readonly whole: boolean,
  ) {}
}
