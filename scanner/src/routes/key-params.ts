import { ScannerError } from '../errors.js';

/** `{id}` in a KEY route's path: a UUID (any version), else 400 invalid_id. */
export const ID_PARAMS_SCHEMA = Object.freeze({
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' } },
});

export interface IdParams {
  id: string;
}

/** A list route's query: `limit` only. Query values are strings (types are not coerced), so the range is checked in listLimit. */
export const LIMIT_QUERY_SCHEMA = Object.freeze({
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'string', pattern: '^[0-9]{1,4}$' } },
});

export interface LimitQuery {
  limit?: string;
}

/** The list size asked for: `fallback` when absent, 400 invalid_query outside 1..max. */
export function listLimit(query: LimitQuery, fallback: number, max: number): number {
  if (query.limit === undefined) return fallback;
  const n = Number(query.limit);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new ScannerError('invalid_query');
  return n;
}

/** Ids are stored lower-case; a caller may write them in either case. */
export function normaliseId(id: string): string {
  return id.toLowerCase();
}
