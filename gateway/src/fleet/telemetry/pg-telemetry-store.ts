import type pg from 'pg';
import { issueIdOf, issueTitle } from '../../telemetry/error-store.js';
import { logCursor, type LogPage, type LogQuery } from '../../telemetry/log-store.js';
import { METRIC_INDEX, mergeSlots, type MetricName, type Slot } from '../../telemetry/metric-slot.js';
import { summarize, type MetricSeries } from '../../telemetry/metric-summary.js';
import type { ErrorEvent, ErrorIssue, LogEntry } from '../../telemetry/telemetry-records.js';
import { withTransaction } from '../postgres/database.js';
import type { ShippedError, ShippedLog, ShippedMetric, TelemetryBatch } from './telemetry-batch-format.js';

/** Each metric's column, by its index in a slot (METRICS order). */
const COLUMNS = ['latency_ms', 'decision_count', 'blocked_count', 'cost_brl', 'heartbeat_missed', 'redis_fallbacks'] as const;

// Counts add up (NULL: no sample, stays so); samples are appended. Rows come sorted, so replicas lock in one order.
const addCount = (c: string) => `${c} = CASE WHEN EXCLUDED.${c} IS NULL THEN t.${c} ELSE COALESCE(t.${c}, 0) + EXCLUDED.${c} END`;
const UPSERT_METRICS = `
INSERT INTO telemetry_metric_seconds AS t (tenant_id, second, agent_id, ${COLUMNS.join(', ')})
SELECT r.tenant_id, r.second, r.agent_id, r.latency_ms::float8[], r.decision_count, r.blocked_count, r.cost_brl::float8[], r.heartbeat_missed, r.redis_fallbacks
FROM json_to_recordset($1::json) AS r(tenant_id text, second bigint, agent_id text, latency_ms text, decision_count float8, blocked_count float8, cost_brl text, heartbeat_missed float8, redis_fallbacks float8)
ON CONFLICT (tenant_id, second, agent_id) DO UPDATE SET
  latency_ms = array_cat(t.latency_ms, EXCLUDED.latency_ms),
  cost_brl = array_cat(t.cost_brl, EXCLUDED.cost_brl),
  ${['decision_count', 'blocked_count', 'heartbeat_missed', 'redis_fallbacks'].map(addCount).join(',\n  ')}`;

const INSERT_LOGS = `
INSERT INTO telemetry_logs (tenant_id, id, agent_id, at, entry)
SELECT r.tenant_id, r.id, r.agent_id, r.at, r.entry FROM json_to_recordset($1::json) AS r(tenant_id text, id text, agent_id text, at timestamptz, entry json)
ON CONFLICT (tenant_id, id) DO NOTHING`;

const INSERT_EVENTS = `
INSERT INTO telemetry_error_events (tenant_id, id, issue_id, at, event)
SELECT r.tenant_id, r.id, r.issue_id, r.at, r.event FROM json_to_recordset($1::json) AS r(tenant_id text, id text, issue_id text, at timestamptz, event json)
ON CONFLICT (tenant_id, id) DO NOTHING
RETURNING tenant_id, id`;

// An issue's title is its first event's message; its agent, its latest event's.
const UPSERT_ISSUES = `
INSERT INTO telemetry_error_issues AS i (tenant_id, id, title, level, count, first_seen, last_seen, agent_id)
SELECT r.tenant_id, r.id, r.title, r.level, r.count, r.first_seen, r.last_seen, r.agent_id
FROM json_to_recordset($1::json) AS r(tenant_id text, id text, title text, level text, count bigint, first_seen timestamptz, last_seen timestamptz, agent_id text)
ON CONFLICT (tenant_id, id) DO UPDATE SET
  count = i.count + EXCLUDED.count,
  title = CASE WHEN EXCLUDED.first_seen < i.first_seen THEN EXCLUDED.title ELSE i.title END,
  first_seen = LEAST(i.first_seen, EXCLUDED.first_seen),
  agent_id = CASE WHEN EXCLUDED.last_seen >= i.last_seen THEN EXCLUDED.agent_id ELSE i.agent_id END,
  last_seen = GREATEST(i.last_seen, EXCLUDED.last_seen)`;

export interface StoredCounts {
  metrics: number;
  logs: number;
  errors: number;
}

type Items = Pick<TelemetryBatch, 'metrics' | 'logs' | 'errors'>;

/**
 * The control plane's telemetry in PostgreSQL (migration 004_telemetry): what sidecars ship, stored once per batch,
 * and the queries `/v1/telemetry/query/*` answer from it, with the embedded gateway's semantics.
 */
export class PgTelemetryStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Stores a sidecar's batch in one transaction; a batch already stored (a resend) stores nothing and answers
   * `duplicate`. Logs and error events are also keyed by their ids, so nothing is counted twice either way.
   */
  async storeBatch(batch: TelemetryBatch): Promise<{ duplicate: boolean; stored: StoredCounts }> {
    return withTransaction(this.pool, async (client) => {
      const fresh = await client.query('INSERT INTO telemetry_batches (instance_id, batch_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [batch.instance_id, batch.batch_id]);
      if (fresh.rowCount === 0) return { duplicate: true, stored: { metrics: 0, logs: 0, errors: 0 } };
      return { duplicate: false, stored: await this.#store(client, batch) };
    });
  }

  /** Items written straight at the control plane (`POST /v1/telemetry/ingest` there): no batch to remember. */
  async storeItems(items: Items): Promise<StoredCounts> {
    return withTransaction(this.pool, (client) => this.#store(client, items));
  }

  async #store(client: pg.PoolClient, items: Items): Promise<StoredCounts> {
    const metrics = metricRows(items.metrics);
    if (metrics.length > 0) await client.query(UPSERT_METRICS, [JSON.stringify(metrics)]);
    let logs = 0;
    if (items.logs.length > 0) logs = (await client.query(INSERT_LOGS, [JSON.stringify(items.logs.map(logRow))])).rowCount ?? 0;
    let errors = 0;
    if (items.errors.length > 0) {
      const rows = items.errors.map(eventRow);
      const inserted = await client.query<{ tenant_id: string; id: string }>(INSERT_EVENTS, [JSON.stringify(rows)]);
      errors = inserted.rowCount ?? 0;
      // Only events stored now count towards their issue (a resent event is already counted).
      const isNew = new Set(inserted.rows.map((r) => `${r.tenant_id}\n${r.id}`));
      const issues = issueRows(items.errors.filter((e) => isNew.has(`${e.tenant_id}\n${e.id}`)));
      if (issues.length > 0) await client.query(UPSERT_ISSUES, [JSON.stringify(issues)]);
    }
    return { metrics: metrics.length, logs, errors };
  }

  async logs(tenantId: string, q: LogQuery): Promise<LogPage> {
    const after = logCursor(q.cursor);
    const where = ['tenant_id = $1'];
    const params: unknown[] = [tenantId];
    if (q.agentId !== undefined) where.push(`agent_id = $${params.push(q.agentId)}`);
    const { rows: counted } = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM telemetry_logs WHERE ${where.join(' AND ')}`, params);
    if (after !== null) where.push(`id < $${params.push(after)}`);
    const { rows } = await this.pool.query<{ entry: LogEntry }>(`SELECT entry FROM telemetry_logs WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${params.push(q.limit + 1)}`, params);
    const data = rows.map((r) => r.entry);
    const more = data.length > q.limit;
    if (more) data.length = q.limit;
    return { data, total: Number(counted[0]?.n ?? 0), cursor: more ? data[data.length - 1]!.id : null };
  }

  async stats(tenantId: string, metric: MetricName, from: number, to: number, agentId: string | undefined): Promise<MetricSeries> {
    const i = METRIC_INDEX.get(metric) as number;
    const column = COLUMNS[i] as string;
    const params: unknown[] = [tenantId, from, to];
    const agent = agentId === undefined ? '' : ` AND agent_id = $${params.push(agentId)}`;
    const { rows } = await this.pool.query<{ second: string; value: number | number[] }>(
      `SELECT second, ${column} AS value FROM telemetry_metric_seconds WHERE tenant_id = $1 AND second BETWEEN $2 AND $3${agent} AND ${column} IS NOT NULL`,
      params,
    );
    const perSecond = new Map<number, number>();
    const values: number[] = [];
    for (const { second, value } of rows) {
      const ts = Number(second);
      for (const v of typeof value === 'number' ? [value] : value) {
        perSecond.set(ts, (perSecond.get(ts) ?? 0) + v);
        values.push(v);
      }
    }
    return summarize(metric, perSecond, values);
  }

  async issues(tenantId: string, limit: number): Promise<{ data: ErrorIssue[]; total: number }> {
    const [{ rows }, { rows: counted }] = await Promise.all([
      this.pool.query<{ id: string; title: string; level: string; count: string; first_seen: Date; last_seen: Date; agent_id: string }>(
        'SELECT id, title, level, count, first_seen, last_seen, agent_id FROM telemetry_error_issues WHERE tenant_id = $1 ORDER BY last_seen DESC, id LIMIT $2',
        [tenantId, limit],
      ),
      this.pool.query<{ n: string }>('SELECT count(*) AS n FROM telemetry_error_issues WHERE tenant_id = $1', [tenantId]),
    ]);
    const data = rows.map((r) => ({ id: r.id, title: r.title, level: r.level, count: Number(r.count), firstSeen: r.first_seen.toISOString(), lastSeen: r.last_seen.toISOString(), agentId: r.agent_id }));
    return { data, total: Number(counted[0]?.n ?? 0) };
  }

  async events(tenantId: string, limit: number, issueId: string | undefined): Promise<{ data: ErrorEvent[] }> {
    const params: unknown[] = [tenantId];
    const issue = issueId === undefined ? '' : ` AND issue_id = $${params.push(issueId)}`;
    const { rows } = await this.pool.query<{ event: ErrorEvent }>(`SELECT event FROM telemetry_error_events WHERE tenant_id = $1${issue} ORDER BY id DESC LIMIT $${params.push(limit)}`, params);
    return { data: rows.map((r) => r.event) };
  }

  /**
   * Deletes what is older than `beforeMs` (issues last seen before it, and the stored batch ids too), `chunk` rows per
   * statement so no statement holds long locks; returns the rows deleted.
   */
  async prune(beforeMs: number, chunk = 5000): Promise<number> {
    const before = new Date(beforeMs);
    const targets: [string, string, unknown][] = [
      ['telemetry_metric_seconds', 'second', Math.floor(beforeMs / 1000)],
      ['telemetry_logs', 'at', before],
      ['telemetry_error_events', 'at', before],
      ['telemetry_error_issues', 'last_seen', before],
      ['telemetry_batches', 'received_at', before],
    ];
    let removed = 0;
    for (const [table, column, cutoff] of targets) {
      for (;;) {
        const r = await this.pool.query(`DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${column} < $1 LIMIT $2)`, [cutoff, chunk]);
        removed += r.rowCount ?? 0;
        if ((r.rowCount ?? 0) < chunk) break;
      }
    }
    return removed;
  }
}

/** A float list as a PostgreSQL array literal (JSON numbers are finite; `::float8[]` reads it). */
const arrayLiteral = (v: number | number[] | null | undefined): string | undefined => (Array.isArray(v) ? `{${v.join(',')}}` : undefined);
const count = (v: number | number[] | null | undefined): number | undefined => (typeof v === 'number' ? v : undefined);

/** One row per tenant, agent and second (a batch may hold a second twice: two flushes), sorted by the primary key. */
function metricRows(metrics: readonly ShippedMetric[]): Record<string, unknown>[] {
  const merged = new Map<string, ShippedMetric>();
  for (const m of metrics) {
    const key = JSON.stringify([m.tenant_id, m.second, m.agent_id]);
    const held = merged.get(key);
    merged.set(key, held ? { ...held, slot: mergeSlots(held.slot, m.slot) } : m);
  }
  const rows = [...merged.values()].sort((a, b) => cmp(a.tenant_id, b.tenant_id) || a.second - b.second || cmp(a.agent_id, b.agent_id));
  return rows.map(({ tenant_id, second, agent_id, slot }: { tenant_id: string; second: number; agent_id: string; slot: Slot }) => ({
    tenant_id,
    second,
    agent_id,
    latency_ms: arrayLiteral(slot[0]),
    decision_count: count(slot[1]),
    blocked_count: count(slot[2]),
    cost_brl: arrayLiteral(slot[3]),
    heartbeat_missed: count(slot[4]),
    redis_fallbacks: count(slot[5]),
  }));
}

function logRow(l: ShippedLog): Record<string, unknown> {
  const entry: LogEntry = { id: l.id, timestamp: l.timestamp, level: l.level, message: l.message, agentId: l.agent_id, traceId: l.trace_id, attributes: l.attributes };
  return { tenant_id: l.tenant_id, id: l.id, agent_id: l.agent_id, at: l.timestamp, entry };
}

function eventRow(e: ShippedError): Record<string, unknown> {
  const event: ErrorEvent = {
    id: e.id,
    issueId: issueIdOf(e.level, e.rule_id, e.message),
    timestamp: e.timestamp,
    level: e.level,
    message: e.message,
    context: { agentId: e.agent_id, ruleId: e.rule_id, traceId: e.trace_id },
  };
  return { tenant_id: e.tenant_id, id: e.id, issue_id: event.issueId, at: e.timestamp, event };
}

/** New events grouped into their issues: count, first and last seen, sorted by the primary key. */
function issueRows(events: readonly ShippedError[]): Record<string, unknown>[] {
  const issues = new Map<string, { tenant_id: string; id: string; title: string; level: string; count: number; first_seen: string; last_seen: string; agent_id: string }>();
  for (const e of events) {
    const id = issueIdOf(e.level, e.rule_id, e.message);
    const key = `${e.tenant_id}\n${id}`;
    const cur = issues.get(key);
    if (!cur) {
      issues.set(key, { tenant_id: e.tenant_id, id, title: issueTitle(e.message), level: e.level, count: 1, first_seen: e.timestamp, last_seen: e.timestamp, agent_id: e.agent_id });
      continue;
    }
    cur.count++;
    if (Date.parse(e.timestamp) < Date.parse(cur.first_seen)) {
      cur.first_seen = e.timestamp;
      cur.title = issueTitle(e.message);
    }
    if (Date.parse(e.timestamp) >= Date.parse(cur.last_seen)) {
      cur.last_seen = e.timestamp;
      cur.agent_id = e.agent_id;
    }
  }
  return [...issues.values()].sort((a, b) => cmp(a.tenant_id, b.tenant_id) || cmp(a.id, b.id));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
