import type { DryRunAnswer } from '../../policy-dry-run-routes.js';
import { DRY_RUN_DEFAULT, DRY_RUN_MAX } from '../../policy-dry-run-routes.js';
import { esc } from '../html-headers.js';
import { csrfField, page, type Viewer } from './layout.js';

/** What the editor shows: the policy's JSON as typed, and what the last dry run or save attempt answered. */
export interface EditorState {
  /** The policy being edited, or null for a new one. */
  policyId: string | null;
  policyName: string | null;
  /** Where the stored policy applies, for people ('' everywhere; null for a new policy). */
  scope: string | null;
  json: string;
  limit: number;
  error: string;
  result: DryRunAnswer | null;
  /** False where no chain is kept here (the control plane): the dry run is not offered. */
  dryRunAvailable: boolean;
}

/** The JSON a new policy starts from: a tool_access one, the type a dry run judges on recorded tool calls. */
export const NEW_POLICY_JSON = JSON.stringify({ name: 'New policy', type: 'tool_access', risk: 50, enabled: true, rules: { deny: ['shell.*'], action: 'DENY' } }, null, 2);

function verdict(v: string | null): string {
  return v === null ? '<span class="muted">—</span>' : `<span class="verdict verdict-${esc(v)}">${esc(v)}</span>`;
}

function resultTable(r: DryRunAnswer): string {
  const t = r.totals;
  const changes = Object.entries(t.changes)
    .map(([k, n]) => `${esc(k)}: ${n}`)
    .join(', ');
  const rows = r.actions
    .map(
      (a) =>
        `<tr data-decision="${esc(a.decision_id)}" class="${a.changed ? 'changed' : ''}"><td><a href="/console/decisions/${encodeURIComponent(a.decision_id)}" class="mono">${esc(a.decision_id)}</a></td><td class="mono">${esc(a.created_at)}</td><td>${esc(a.agent_id ?? '')}</td><td>${esc(a.event_type)}</td><td>${verdict(a.old_verdict)}</td><td>${verdict(a.new_verdict)}</td><td class="changed-cell">${a.changed === null ? 'not re-judged' : a.changed ? 'changed' : 'same'}</td><td>${esc(a.why)}</td></tr>`,
    )
    .join('');
  return `<h2>Dry run</h2><p id="dry-run-totals"><strong>${t.changed}</strong> of ${t.actions} recorded actions would change verdict${changes ? ` (${changes})` : ''}; ${t.rejudged} re-judged, ${t.not_rejudged} could not be. Nothing was saved (policy set ${esc(r.policy_version)}).</p><table id="dry-run"><thead><tr><th>Decision</th><th>Time</th><th>Agent</th><th>Event</th><th>Recorded verdict</th><th>New verdict</th><th>Change</th><th>Why</th></tr></thead><tbody>${rows || '<tr><td colspan="8" class="muted">No recorded action yet.</td></tr>'}</tbody></table>`;
}

/** The policy editor (admins only): a policy's JSON, validated as the API validates it, a dry run, and save. */
export function policyEditorPage(v: Viewer, s: EditorState): string {
  const title = s.policyId === null ? 'New policy' : `Edit policy ${s.policyName ?? s.policyId}`;
  const shape =
    s.policyId === null
      ? 'the body of <code>POST /v1/policies</code>, with an optional <code>scope</code> (agents, models, servers, tools, doors, direction) that aims it'
      : 'the fields to change, as <code>PUT /v1/policies/{id}</code> takes them (a policy\'s type cannot change; without <code>scope</code>, the policy applies everywhere)';
  const scope = s.scope === null ? '' : `<p id="policy-scope">Applies to: ${s.scope === '' ? 'every action (no scope)' : esc(s.scope)}.</p>`;
  const error = s.error ? `<div class="notice bad" id="editor-error" role="alert">${esc(s.error)}</div>` : '';
  const dryRun = s.dryRunAvailable
    ? `<label for="limit">Recorded actions to judge (1 to ${DRY_RUN_MAX})<input id="limit" name="limit" type="number" min="1" max="${DRY_RUN_MAX}" value="${s.limit}"></label><button type="submit" name="op" value="dry-run" id="dry-run-button">Dry run</button>`
    : '<p class="muted">The dry run needs the recorded actions of a gateway\'s ledger; it is not offered here.</p>';
  return page(
    v,
    'policies',
    title,
    `${error}${scope}<p class="muted">The policy as JSON: ${shape}. <strong>Dry run</strong> judges it against the tenant's last recorded actions and shows which verdicts would change, saving nothing; <strong>Save</strong> stores it. The ledger keeps actions' text only as hashes: a tool_access policy is judged on recorded tool calls, a model_access one on recorded proxied calls, other types only where the verdict cannot depend on them; a scoped policy triggers nothing on an action outside its scope; each row says which.</p><form method="post" action="/console/policies/editor" class="policy-editor">${csrfField(v)}${s.policyId === null ? '' : `<input type="hidden" name="policy_id" value="${esc(s.policyId)}">`}<label for="policy-json">Policy (JSON)<textarea id="policy-json" name="policy" rows="14" spellcheck="false">${esc(s.json)}</textarea></label><div class="editor-actions">${dryRun}<button type="submit" name="op" value="save" id="save-button" class="secondary">Save</button> <a href="/console/policies">Back to policies</a></div></form>${s.result ? resultTable(s.result) : ''}`,
  );
}

export const EDITOR_DEFAULT_LIMIT = DRY_RUN_DEFAULT;
