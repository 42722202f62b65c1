import { GatewayError } from '../../errors.js';
import type { Verdict } from '../../policy/verdict.js';
import { localTime, viewerZone } from './audit-query.js';
import { decodeDecisionCursor, type DecisionFilter } from './decision-list.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
const VERDICTS = new Set(['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE']);
const SINCE_MS: Record<string, number> = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, all: Infinity };

/** The list's filters as the viewer typed them, echoed back into the form and carried by its page links. */
export interface DecisionsQuery {
  verdict: string;
  agent: string;
  rule: string;
  q: string;
  since: string;
  from: string;
  to: string;
  limit: string;
}

export interface ParsedDecisionsQuery {
  filter: DecisionFilter;
  shown: DecisionsQuery;
  tzo: string;
}

const text = (query: URLSearchParams, name: string): string => (query.get(name) ?? '').trim().slice(0, 256);

/**
 * The decisions list's and its CSV's query string, checked (400 `invalid_request` for a value it cannot mean). A rule
 * is matched by id, or by name through `policyIdsNamed` (the ids of the tenant's policies of that name).
 */
export function parseDecisionsQuery(query: URLSearchParams, now: number, policyIdsNamed: (name: string) => string[]): ParsedDecisionsQuery {
  const verdict = query.get('verdict') ?? '';
  if (verdict && !VERDICTS.has(verdict)) throw new GatewayError('invalid_request', 'verdict: ALLOW, DENY, REQUIRE_APPROVAL or ESCALATE');
  const since = query.get('since') ?? '24h';
  if (!(since in SINCE_MS)) throw new GatewayError('invalid_request', 'since: 1h, 24h, 7d or all');
  const limitText = query.get('limit') ?? '';
  const limit = limitText === '' ? DEFAULT_PAGE_SIZE : Number(limitText);
  if (!/^\d{1,3}$/.test(limitText || '0') || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) throw new GatewayError('invalid_request', `limit: 1 to ${MAX_PAGE_SIZE}`);
  const cursor = query.get('cursor');
  const before = cursor === null ? null : decodeDecisionCursor(cursor);
  if (cursor !== null && before === null) throw new GatewayError('invalid_request', 'cursor: not one this list returned');
  const { tzo, tzoMinutes } = viewerZone(query);
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  const fromMs = localTime('from', from, tzoMinutes, false) ?? -Infinity;
  const toMs = localTime('to', to, tzoMinutes, true) ?? Infinity;
  const rule = text(query, 'rule');
  const agent = text(query, 'agent');
  const q = text(query, 'q');
  return {
    filter: {
      verdict: verdict as Verdict | '',
      agent,
      rules: new Set(rule ? [rule, ...policyIdsNamed(rule)] : []),
      search: q,
      from: Math.max(fromMs, now - (SINCE_MS[since] as number)),
      to: toMs,
      before,
      limit,
    },
    shown: { verdict, agent, rule, q, since, from, to, limit: limitText },
    tzo,
  };
}

/** The list's query string for another page (or the CSV) with the same filters. */
export function decisionsQueryString(q: DecisionsQuery, tzo: string, cursor: string | null): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v) params.set(k, v);
  if (tzo && (q.from || q.to)) params.set('tzo', tzo);
  if (cursor !== null) params.set('cursor', cursor);
  return params.toString();
}
