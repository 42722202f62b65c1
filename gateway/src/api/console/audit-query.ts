import { GatewayError } from '../../errors.js';
import { AUDITED_EVENT_TYPES, type AuditFilter } from '../../governance/admin-actions.js';
import type { AuditQuery } from './pages/audit-page.js';

const PAGE_SIZE = 50;
/** A datetime-local field's value: no zone of its own (the form's `tzo` gives it). */
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

/** A typed time, read in the viewer's zone (`tzo`: minutes behind UTC, as Date#getTimezoneOffset), as epoch ms. */
export function localTime(name: string, value: string, tzoMinutes: number, endOfMinute: boolean): number | null {
  if (value === '') return null;
  const ms = LOCAL_TIME.test(value) ? Date.parse(`${value}Z`) : NaN;
  if (!Number.isFinite(ms)) throw new GatewayError('invalid_request', `${name}: a date and time (YYYY-MM-DDTHH:MM)`);
  // A time typed to the minute covers that whole minute at the upper bound.
  const whole = endOfMinute && value.length === 16 ? 59_999 : 0;
  return ms + tzoMinutes * 60_000 + whole;
}

/** The form's `tzo` (the viewer's zone, minutes behind UTC), checked; 0 (UTC) when absent. */
export function viewerZone(query: URLSearchParams): { tzo: string; tzoMinutes: number } {
  const tzo = query.get('tzo') ?? '';
  const tzoMinutes = tzo === '' ? 0 : Number(tzo);
  if (!Number.isInteger(tzoMinutes) || Math.abs(tzoMinutes) > 18 * 60) throw new GatewayError('invalid_request', 'tzo: minutes from UTC, -1080 to 1080');
  return { tzo, tzoMinutes };
}

/** The audit page's query string, checked (400 for a value it cannot mean), as the filter and the form's echo. */
export function parseAuditQuery(query: URLSearchParams): { filter: AuditFilter; shown: AuditQuery; tzo: string } {
  const action = query.get('action') ?? '';
  if (action !== '' && !AUDITED_EVENT_TYPES.includes(action)) throw new GatewayError('invalid_request', `action: one of ${AUDITED_EVENT_TYPES.join(', ')}`);
  const actor = (query.get('actor') ?? '').trim().slice(0, 256);
  const { tzo, tzoMinutes } = viewerZone(query);
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  const rawBefore = query.get('before');
  const before = rawBefore === null ? null : Number(rawBefore);
  if (before !== null && !(Number.isSafeInteger(before) && before >= 1)) throw new GatewayError('invalid_request', 'before: an entry number from a previous page');
  return {
    filter: {
      action: action || null,
      actor: actor || null,
      from: localTime('from', from, tzoMinutes, false),
      to: localTime('to', to, tzoMinutes, true),
      before,
      limit: PAGE_SIZE,
    },
    shown: { action, actor, from, to },
    tzo,
  };
}
