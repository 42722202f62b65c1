import type { PiiMatch } from './entities.js';

/** Redactions per entity (EMAIL: 2), never the values: what the ledger entry of a call records beside the total. */
export type EntityTally = Record<string, number>;

/**
 * Adds a redaction's matches to `into` and returns it; allocates only once something matched (null stays null for
 * the calls that redact nothing, which are nearly all).
 */
export function tallyEntities(matches: readonly PiiMatch[], into: EntityTally | null): EntityTally | null {
  if (matches.length === 0) return into;
  const out = into ?? {};
  for (let i = 0; i < matches.length; i++) {
    const e = (matches[i] as PiiMatch).entity;
    out[e] = (out[e] ?? 0) + 1;
  }
  return out;
}

/**
 * A redactor at work over one call's texts: each text redacted by `redact` (a bound function, to hand straight to a
 * text walker), the total and the tally per entity kept for the call's record.
 */
export class RedactionCount {
  count = 0;
  entities: EntityTally | null = null;

  constructor(private readonly redactor: { redact(text: string): { text: string; matches: readonly PiiMatch[] } }) {}

  readonly redact = (text: string): string => {
    const r = this.redactor.redact(text);
    this.count += r.matches.length;
    this.entities = tallyEntities(r.matches, this.entities);
    return r.text;
  };
}
