import type { DecisionRecord } from '../../../policy/decisions/decision-store.js';
import { isHeld } from '../../../policy/verdict.js';
import { esc } from '../html-headers.js';
import { csrfField, page, type Viewer } from './layout.js';

export interface DecisionsQuery {
  verdict: string;
  agent: string;
  since: string;
}

const VERDICT_OPTIONS = ['', 'ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE'];
const SINCE_OPTIONS: [string, string][] = [['1h', 'last hour'], ['24h', 'last 24 hours'], ['7d', 'last 7 days'], ['all', 'all kept']];

function resolveCell(v: Viewer, d: DecisionRecord): string {
  if (!isHeld(d.execution_status)) return '';
  if (d.resolution) return `<span class="resolution">${esc(d.resolution.status)}</span>`;
  // Only admins get the buttons; the server refuses anyone else regardless (403).
  if (!v.principal.scopes.includes('admin:manage')) return '<span class="muted">awaiting an admin</span>';
  const form = (resolution: string, label: string, cls: string) =>
    `<form class="inline" method="post" action="/console/decisions/${encodeURIComponent(d.decision_id)}/resolve">${csrfField(v)}<input type="hidden" name="resolution" value="${resolution}"><button type="submit" class="${cls}" data-resolve="${resolution}">${label}</button></form>`;
  return form('APPROVED', 'Approve', '') + ' ' + form('REJECTED', 'Reject', 'secondary');
}

export function decisionsPage(v: Viewer, rows: DecisionRecord[], q: DecisionsQuery, notice: string): string {
  const verdicts = VERDICT_OPTIONS.map((o) => `<option value="${o}"${o === q.verdict ? ' selected' : ''}>${o || 'any'}</option>`).join('');
  const since = SINCE_OPTIONS.map(([o, label]) => `<option value="${o}"${o === q.since ? ' selected' : ''}>${label}</option>`).join('');
  const body = rows
    .map(
      (d) =>
        `<tr data-decision="${esc(d.decision_id)}"><td class="mono">${esc(d.created_at)}</td><td class="mono"><a href="/console/decisions/${encodeURIComponent(d.decision_id)}" data-detail="${esc(d.decision_id)}">${esc(d.decision_id)}</a></td><td>${esc(d.agent_id)}</td><td>${esc(d.event_type)}</td><td><span class="verdict verdict-${esc(d.execution_status)}">${esc(d.execution_status)}</span></td><td>${d.risk_score}</td><td class="mono">${esc(d.rule)}</td><td>${resolveCell(v, d)}</td></tr>`,
    )
    .join('');
  const html = `${notice ? `<div class="notice ok" id="notice">${esc(notice)}</div>` : ''}
<form class="filters" method="get" action="/console/decisions">
<label>Verdict<select name="verdict">${verdicts}</select></label>
<label>Agent<input name="agent" value="${esc(q.agent)}" maxlength="256"></label>
<label>Time<select name="since">${since}</select></label>
<button type="submit">Filter</button></form>
<table id="decisions"><thead><tr><th>Time</th><th>Decision</th><th>Agent</th><th>Event</th><th>Verdict</th><th>Risk</th><th>Rule</th><th>Resolution</th></tr></thead><tbody>${body || '<tr><td colspan="8" class="muted">No decisions match.</td></tr>'}</tbody></table>`;
  return page(v, 'decisions', 'Decisions', html);
}
