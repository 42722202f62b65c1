import type { MaybePromise } from '../../agents/agent-directory.js';
import type { DecisionRecord } from '../../governance/decisions/decision-store.js';
import { MAX_PAGE_SIZE } from './decision-query.js';
import type { DecisionFilter, DecisionListPage } from './decision-list.js';

export const CSV_COLUMNS = [
  'decision_id',
  'created_at',
  'agent_id',
  'verdict',
  'rule',
  'risk_score',
  'event_type',
  'model',
  'prompt_tokens',
  'completion_tokens',
  'cost_brl',
  'latency_ms',
  'resolution',
  'trace_id',
] as const;

/** A spreadsheet reads a cell starting with one of these as a formula (CSV injection): such cells get a leading '. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One RFC 4180 field: quoted when it holds a comma, quote or line break (quotes doubled), neutralised against formulas. */
export function csvCell(value: string | number | undefined | null): string {
  if (value === undefined || value === null) return '';
  let s = String(value);
  if (typeof value !== 'number' && FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csvLine(d: DecisionRecord): string {
  const cells: (string | number | undefined)[] = [
    d.decision_id,
    new Date(d.created_at).toISOString(),
    d.agent_id,
    d.execution_status,
    d.rule,
    d.risk_score,
    d.event_type,
    d.model,
    d.prompt_tokens,
    d.completion_tokens,
    d.cost_brl,
    d.latency_ms,
    d.resolution?.status,
    d.trace_id,
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export interface DecisionsCsv {
  /** One buffer per page read, in order: the file is never one string. */
  chunks: Buffer[];
  /** The row cap, or the read bound, stopped the export before the filters' range was exhausted. */
  truncated: boolean;
  rows: number;
}

/**
 * The decisions matching the list's filters, newest first, as CSV, read page by page with the list's own paging: at
 * most `maxRows` rows, and at most `maxRows` decisions read (so a filter matching little cannot read the whole store).
 */
export async function decisionsCsv(
  readPage: (f: DecisionFilter) => MaybePromise<DecisionListPage>,
  filter: DecisionFilter,
  maxRows: number,
): Promise<DecisionsCsv> {
  const chunks = [Buffer.from(`${CSV_COLUMNS.join(',')}\r\n`)];
  let rows = 0;
  let read = 0;
  let before = filter.before;
  for (;;) {
    const page = await readPage({ ...filter, before, limit: Math.min(MAX_PAGE_SIZE, maxRows - rows) });
    if (page.rows.length > 0) chunks.push(Buffer.from(page.rows.map(csvLine).join('')));
    rows += page.rows.length;
    // A full page's look-ahead row is the next page's first: counted once.
    read += page.next !== null && page.complete ? page.scanned - 1 : page.scanned;
    if (page.next === null) return { chunks, truncated: false, rows };
    if (rows >= maxRows || read >= maxRows) return { chunks, truncated: true, rows };
    before = page.next;
  }
}
