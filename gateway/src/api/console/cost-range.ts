import { GatewayError } from '../../errors.js';
import type { CostRange } from './pages/costs-page.js';

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** The range shown when none is chosen: the last seven UTC days, today included. */
const DEFAULT_DAYS = 7;

function day(name: string, value: string): number {
  const ms = DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (!Number.isFinite(ms)) throw new GatewayError('invalid_request', `${name}: a date (YYYY-MM-DD)`);
  return ms;
}

/** The costs page's `from` and `to` (UTC days, both included; 400 for anything else) as [fromMs, toMs). */
export function parseCostRange(query: URLSearchParams, now: number): { fromMs: number; toMs: number; shown: CostRange } {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const to = query.get('to') || new Date(today).toISOString().slice(0, 10);
  const from = query.get('from') || new Date(day('to', to) - (DEFAULT_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const fromMs = day('from', from);
  const toMs = day('to', to) + DAY_MS;
  if (fromMs >= toMs) throw new GatewayError('invalid_request', 'from: a day on or before to');
  return { fromMs, toMs, shown: { from, to } };
}
