import { GatewayError } from '../errors.js';
import type { AgentState, AgentStatus } from './agent-state.js';

export interface ListQuery {
  status?: AgentStatus | null;
  limit: number;
  cursor?: string | null;
}

export interface AgentPage {
  data: AgentState[];
  cursor: string | null;
  total: number;
}

/** A page of agents in agent-id order, optionally of one status; `cursor` is the last id seen (opaque to clients). */
export function pageAgents(agents: Iterable<AgentState>, query: ListQuery, now: number, intervalMs: number): AgentPage {
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  const all = [...agents].filter((s) => !query.status || s.status(now, intervalMs) === query.status);
  all.sort((a, b) => (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0));
  const start = after === null ? 0 : all.findIndex((s) => s.agentId > after);
  const rest = start < 0 ? [] : all.slice(start);
  const data = rest.slice(0, query.limit);
  const more = rest.length > query.limit;
  return { data, cursor: more ? encodeCursor(data[data.length - 1]!.agentId) : null, total: all.length };
}

function encodeCursor(agentId: string): string {
  return Buffer.from(agentId, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (id === '' || encodeCursor(id) !== cursor) throw new GatewayError('invalid_request', 'cursor: invalid');
  return id;
}
