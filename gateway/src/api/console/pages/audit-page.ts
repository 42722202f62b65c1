import type { LedgerEntry } from '../../../ledger/index.js';
import { AUDITED_EVENT_TYPES, entryActor, type AuditPage } from '../../../governance/admin-actions.js';
import { esc } from '../html-headers.js';
import { page, type Viewer } from './layout.js';

/** The audit trail's filters as the viewer typed them (times: the form's local date-times, echoed back as given). */
export interface AuditQuery {
  action: string;
  actor: string;
  from: string;
  to: string;
}

const short = (digest: unknown): string =>
  typeof digest === 'string' ? `<span class="mono" title="SHA-256 ${esc(digest)}">${esc(digest.slice(0, 12))}…</span>` : '<span class="muted">none</span>';

/** What changed: the before/after digests of an admin action, a plan's names, a resolution's outcome. */
function changeCell(e: LedgerEntry): string {
  const p = e.payload;
  if (e.event_type === 'tenant.plan_changed') return `${esc(p['from'])} → ${esc(p['to'])}`;
  if (e.event_type === 'decision.resolved') {
    const r = p['resolution'] as { status?: unknown } | null;
    return esc(r?.status ?? '');
  }
  return `${short(p['before'])} → ${short(p['after'])}`;
}

function targetCell(e: LedgerEntry): string {
  const p = e.payload;
  if (e.event_type === 'decision.resolved') {
    const id = String(p['decision_id'] ?? '');
    return `<a class="mono" href="/console/decisions/${encodeURIComponent(id)}">${esc(id)}</a>`;
  }
  if (e.event_type === 'tenant.plan_changed') return esc(e.tenant_id);
  return `<span class="mono">${esc(p['target'])}</span>`;
}

function actorCell(e: LedgerEntry): string {
  const a = entryActor(e);
  return `<span class="mono">${esc(a.by)}</span>${a.user ? ` <span class="muted">(user <span class="mono">${esc(a.user)}</span>)</span>` : ''}`;
}

function query(q: AuditQuery, tzo: string, before: number): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v) params.set(k, v);
  if (tzo && (q.from || q.to)) params.set('tzo', tzo);
  params.set('before', String(before));
  return params.toString();
}

/**
 * The audit trail (docs/console.md): who changed what in the tenant, newest first, read from its ledger. Read-only for
 * every role. `result` is null where the console reads no ledger of admin actions.
 */
export function auditPage(v: Viewer, result: AuditPage | null, q: AuditQuery, tzo: string): string {
  const actions = ['', ...AUDITED_EVENT_TYPES].map((a) => `<option value="${esc(a)}"${a === q.action ? ' selected' : ''}>${esc(a || 'any')}</option>`).join('');
  const filters = `<form class="filters" method="get" action="/console/audit" data-local-times>
<label>Action<select name="action">${actions}</select></label>
<label>Actor<input name="actor" value="${esc(q.actor)}" maxlength="256" placeholder="token, session or user id"></label>
<label>From<input type="datetime-local" name="from" value="${esc(q.from)}" step="1"></label>
<label>To<input type="datetime-local" name="to" value="${esc(q.to)}" step="1"></label>
<input type="hidden" name="tzo" value="${esc(tzo)}">
<button type="submit">Filter</button></form>
<p class="muted">Times in <span data-time-zone>UTC</span>.</p>`;
  if (result === null) {
    return page(v, 'audit', 'Audit trail', '<p class="muted" id="no-audit">Admin actions are chained in the ledger of the gateway they were made at; this console reads none.</p>');
  }
  const rows = result.entries
    .map(
      (e) =>
        `<tr data-seq="${e.seq}" data-action="${esc(e.event_type)}"><td><time datetime="${esc(e.created_at)}">${esc(e.created_at)}</time></td><td>${esc(e.event_type)}</td><td>${actorCell(e)}</td><td>${targetCell(e)}</td><td>${changeCell(e)}</td><td class="mono" title="${esc(e.hash)}">#${e.seq} ${esc(e.hash.slice(0, 12))}…</td></tr>`,
    )
    .join('');
  const next = result.next !== null ? `<p><a id="older" href="/console/audit?${esc(query(q, tzo, result.next))}">Older entries</a></p>` : '';
  const html = `${filters}
<table id="audit"><thead><tr><th>Time</th><th>Action</th><th>Actor</th><th>Target</th><th>Change</th><th>Ledger entry</th></tr></thead><tbody>${rows || '<tr><td colspan="6" class="muted">No admin actions match.</td></tr>'}</tbody></table>${next}
<script src="/console/assets/local-time.js" defer></script>`;
  return page(v, 'audit', 'Audit trail', html);
}
