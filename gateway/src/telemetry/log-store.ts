import type { Database } from 'lmdb';
import { GatewayError } from '../errors.js';
import type { LogEntry } from './telemetry-records.js';

export interface LogPage {
  data: LogEntry[];
  total: number;
  cursor: string | null;
}

export interface LogQuery {
  agentId?: string | undefined;
  limit: number;
  cursor?: string | null | undefined;
}

/** A logs page's cursor: the last id of the previous page (400 otherwise). */
export function logCursor(cursor: string | null | undefined): string | null {
  const after = cursor ?? null;
  if (after !== null && !/^log_[0-9A-Za-z]{1,64}$/.test(after)) throw new GatewayError('invalid_request', 'cursor: invalid');
  return after;
}

/**
 * Ingested logs under [tenant, log id]; ids are ULIDs, so a reverse range is newest first. A second database indexes
 * [tenant, agent, log id] for the per-agent query and its total. Messages arrive here already PII-redacted.
 */
export class LogStore {
  constructor(
    private readonly logs: Database,
    private readonly byAgent: Database,
  ) {}

  append(tenantId: string, entry: LogEntry): Promise<unknown> {
    return this.logs.transaction(() => {
      this.logs.put([tenantId, entry.id], entry);
      this.byAgent.put([tenantId, entry.agentId, entry.id], 1);
    });
  }

  /** Newest first; `cursor` is the last id of the previous page. */
  query(tenantId: string, q: LogQuery): LogPage {
    const after = logCursor(q.cursor);
    const data: LogEntry[] = [];
    let total: number;
    if (q.agentId !== undefined) {
      const base = [tenantId, q.agentId];
      total = this.byAgent.getKeysCount({ start: base, end: [...base, '\uffff'] });
      for (const key of this.byAgent.getKeys({ start: [...base, after ?? '\uffff'], end: base, reverse: true, limit: q.limit + 2 })) {
        const id = (key as [string, string, string])[2];
        if (id === after) continue;
        const e = this.logs.get([tenantId, id]) as LogEntry | undefined;
        if (e) data.push(e);
      }
    } else {
      total = this.logs.getKeysCount({ start: [tenantId], end: [tenantId, '\uffff'] });
      for (const { key, value } of this.logs.getRange({ start: [tenantId, after ?? '\uffff'], end: [tenantId], reverse: true, limit: q.limit + 2 })) {
        if ((key as [string, string])[1] === after) continue;
        data.push(value as LogEntry);
      }
    }
    const more = data.length > q.limit;
    if (data.length > q.limit) data.length = q.limit;
    return { data, total, cursor: more ? data[data.length - 1]!.id : null };
  }

  /** Deletes logs older than `beforeMs` (their ids sort by time), a chunk at a time. */
  async prune(beforeMs: number, chunk = 2000): Promise<number> {
    let removed = 0;
    for (;;) {
      const old: [string, string, string][] = [];
      for (const { key, value } of this.logs.getRange({})) {
        const e = value as LogEntry;
        if (Date.parse(e.timestamp) < beforeMs) old.push([(key as [string, string])[0], e.agentId, e.id]);
        if (old.length >= chunk) break;
      }
      if (old.length === 0) return removed;
      await this.logs.transaction(() => {
        for (const [t, a, id] of old) {
          this.logs.remove([t, id]);
          this.byAgent.remove([t, a, id]);
        }
      });
      removed += old.length;
      if (old.length < chunk) return removed;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
