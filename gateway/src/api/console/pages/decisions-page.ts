import type { DecisionRecord } from '../../../governance/decisions/decision-store.js';
import { isHeld } from '../../../policy/verdict.js';
import { esc } from '../html-headers.js';
import { csrfField, page, type Viewer } from './layout.js';
import { decisionsQueryString, type DecisionsQuery } from '../decision-query.js';
import { encodeDecisionCursor, type DecisionListPage } from '../decision-list.js';

export type { DecisionsQuery } from '../decision-query.js';

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

/**
 * The decisions list (docs/console.md, "Working the lists"): filters, a search box, pages by cursor (newest first, the
 * Older link keeping the filters), times in the viewer's zone (local-time.js), the CSV of the same filters.
 */
/** The deciding rule by its policy's name, linked to the policy (its id in the title); a built-in rule as it is. */
function ruleCell(rule: string, policyNames: ReadonlyMap<string, string>): string {
  const name = policyNames.get(rule);
  if (name === undefined) return `<td class="mono">${esc(rule)}</td>`;
  return `<td><a href="/console/policies#policy-${encodeURIComponent(rule)}" title="${esc(rule)}" data-rule="${esc(rule)}">${esc(name)}</a></td>`;
}

export function decisionsPage(v: Viewer, result: DecisionListPage, q: DecisionsQuery, tzo: string, paged: boolean, notice: string, policyNames: ReadonlyMap<string, string> = new Map()): string {
  const verdicts = VERDICT_OPTIONS.map((o) => `<option value="${o}"${o === q.verdict ? ' selected' : ''}>${o || 'any'}</option>`).join('');
  const since = SINCE_OPTIONS.map(([o, label]) => `<option value="${o}"${o === q.since ? ' selected' : ''}>${label}</option>`).join('');
  const body = result.rows
    .map(
      (d) =>
        `<tr data-decision="${esc(d.decision_id)}"><td><time datetime="${esc(d.created_at)}">${esc(d.created_at)}</time></td><td class="mono"><a href="/console/decisions/${encodeURIComponent(d.decision_id)}" data-detail="${esc(d.decision_id)}">${esc(d.decision_id)}</a></td><td>${esc(d.agent_id)}</td><td>${esc(d.event_type)}</td><td><span class="verdict verdict-${esc(d.execution_status)}">${esc(d.execution_status)}</span></td><td>${d.risk_score}</td>${ruleCell(d.rule, policyNames)}<td>${resolveCell(v, d)}</td></tr>`,
    )
    .join('');
  const scanNote = result.complete ? '' : `<p class="notice" id="scan-stopped">This page stopped after reading ${result.scanned} decisions (CONSOLE_SCAN_LIMIT) without filling up: older decisions may still match. “Continue with older” reads on from where it stopped.</p>`;
  const links: string[] = [];
  if (paged) links.push(`<a id="newest" href="/console/decisions?${esc(decisionsQueryString(q, tzo, null))}">Newest</a>`);
  if (result.next !== null) links.push(`<a id="older" rel="next" href="/console/decisions?${esc(decisionsQueryString(q, tzo, encodeDecisionCursor(result.next)))}">${result.complete ? 'Older decisions' : 'Continue with older'}</a>`);
  const html = `${notice ? `<div class="notice ok" id="notice">${esc(notice)}</div>` : ''}
<form class="filters" method="get" action="/console/decisions" data-local-times>
<label>Search<input name="q" value="${esc(q.q)}" maxlength="256" placeholder="decision id, trace id or agent id start"></label>
<label>Verdict<select name="verdict">${verdicts}</select></label>
<label>Agent<input name="agent" value="${esc(q.agent)}" maxlength="256"></label>
<label>Rule<input name="rule" value="${esc(q.rule)}" maxlength="256" placeholder="policy id or name, or a rule"></label>
<label>Time<select name="since">${since}</select></label>
<label>From<input type="datetime-local" name="from" value="${esc(q.from)}" step="1"></label>
<label>To<input type="datetime-local" name="to" value="${esc(q.to)}" step="1"></label>
${q.limit ? `<input type="hidden" name="limit" value="${esc(q.limit)}">` : ''}<input type="hidden" name="tzo" value="${esc(tzo)}">
<button type="submit">Filter</button></form>
<p class="muted">Times in <span data-time-zone>UTC</span>. <a id="csv" href="/console/decisions.csv?${esc(decisionsQueryString(q, tzo, null))}" download>Download these decisions as CSV</a></p>
${scanNote}<table id="decisions"><thead><tr><th>Time</th><th>Decision</th><th>Agent</th><th>Event</th><th>Verdict</th><th>Risk</th><th>Rule</th><th>Resolution</th></tr></thead><tbody>${body || '<tr><td colspan="8" class="muted">No decisions match.</td></tr>'}</tbody></table>
${links.length ? `<p class="pages">${links.join(' · ')}</p>` : ''}
<script src="/console/assets/local-time.js" defer></script>`;
  return page(v, 'decisions', 'Decisions', html);
}
