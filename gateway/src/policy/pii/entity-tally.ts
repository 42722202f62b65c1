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
