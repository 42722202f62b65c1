import type { PolicyRecord } from '../../../policy/policy-record.js';
import { describeScope } from '../../../policy/policy-scope.js';
import type { Checkpoint } from '../../../ledger/merkle/checkpoint.js';
import type { VerifyReport } from '../../../ledger/lifecycle/verify-chain.js';
import type { AgentSummary } from '../console-data.js';
import { esc } from '../html-headers.js';
import { csrfField, page, type Viewer } from './layout.js';

export function agentsPage(v: Viewer, agents: AgentSummary[]): string {
  const rows = agents
    .map((a) => `<tr data-agent="${esc(a.agent_id)}"><td>${esc(a.agent_id)}${a.name && a.name !== a.agent_id ? ` <span class="muted">${esc(a.name)}</span>` : ''}</td><td>${a.status}</td><td class="mono">${esc(a.last_seen)}</td><td>${esc(a.policy_pack) || '—'}</td><td>${a.decisions}</td><td>${a.blocked}</td><td>${a.risk}</td><td>${a.spend_brl.toFixed(4)}</td></tr>`)
    .join('');
  return page(
    v,
    'agents',
    'Agents',
    `<p class="muted">The tenant's agents (registered, or registered on first use). Decisions, blocked and spend count the tenant's newest decisions (at most CONSOLE_SCAN_LIMIT of them).</p><table id="agents"><thead><tr><th>Agent</th><th>Status</th><th>Last seen</th><th>Pack</th><th>Decisions</th><th>Blocked</th><th>Risk</th><th>Spend (BRL)</th></tr></thead><tbody>${rows || '<tr><td colspan="8" class="muted">No agent yet.</td></tr>'}</tbody></table>`,
  );
}

/** Where a policy applies, for people (docs/policies.md, "Scope"). */
export function scopeCell(p: Pick<PolicyRecord, 'scope'>): string {
  const scope = describeScope(p.scope);
  return scope === '' ? '<span class="muted">everywhere</span>' : esc(scope);
}

export function policiesPage(v: Viewer, policies: PolicyRecord[]): string {
  const admin = v.principal.scopes.includes('admin:manage');
  const toggle = (p: PolicyRecord) =>
    admin
      ? `<td><form class="inline" method="post" action="/console/policies/${encodeURIComponent(p.id)}/toggle">${csrfField(v)}<button type="submit" class="secondary" data-toggle="${esc(p.id)}">${p.enabled ? 'Disable' : 'Enable'}</button></form> <a href="/console/policies/editor?id=${encodeURIComponent(p.id)}" data-edit="${esc(p.id)}">Edit<span class="visually-hidden"> ${esc(p.name)}</span></a></td>`
      : '';
  const rows = policies
    .map((p) => `<tr id="policy-${esc(p.id)}" data-policy="${esc(p.id)}"><td>${esc(p.name)}</td><td>${esc(p.type)}</td><td class="state">${p.enabled ? 'enabled' : 'disabled'}</td><td>${p.risk}</td><td class="mono">${esc(JSON.stringify(p.rules))}</td><td class="scope">${scopeCell(p)}</td><td class="mono">${esc(p.updated_at)}</td>${toggle(p)}</tr>`)
    .join('');
  const note = admin
    ? 'Switch a policy on or off here, or edit one (and dry-run the edit against the recorded actions before saving it). <a href="/console/policies/editor" id="new-policy">New policy</a>'
    : 'Read-only: only admins change policies.';
  const cols = admin ? 8 : 7;
  return page(
    v,
    'policies',
    'Policies',
    `<p class="muted">${note}</p><table id="policies"><thead><tr><th>Name</th><th>Type</th><th>State</th><th>Risk</th><th>Rules</th><th>Scope</th><th>Updated</th>${admin ? '<th><span class="visually-hidden">Switch</span></th>' : ''}</tr></thead><tbody>${rows || `<tr><td colspan="${cols}" class="muted">No policies.</td></tr>`}</tbody></table>`,
  );
}

/** The ledger's summary, verify button and (`browser`, ledger-browser-page.ts) the tenant's entries. */
export function ledgerPage(v: Viewer, size: number, checkpoint: Checkpoint | null, report: VerifyReport | null, browser = ''): string {
  const cp = checkpoint
    ? `<table id="checkpoint"><tbody><tr><th>Tree size</th><td>${checkpoint.tree_size}</td></tr><tr><th>Root hash</th><td class="mono">${esc(checkpoint.root_hash)}</td></tr><tr><th>Signed at</th><td class="mono">${esc(checkpoint.timestamp)}</td></tr><tr><th>Key</th><td class="mono">${esc(checkpoint.key_id)}</td></tr><tr><th>Signature (Ed25519)</th><td class="mono">${esc(checkpoint.signature)}</td></tr></tbody></table>`
    : '<p class="muted" id="checkpoint">No signed checkpoint yet.</p>';
  const result = report
    ? report.ok
      ? `<div class="notice ok" id="verify-result">Verified: ${report.checked} entries and ${report.checkpointsChecked} checkpoints check out.</div>`
      : `<div class="notice bad" id="verify-result">Broken at entry ${report.firstBrokenSeq ?? '?'}: ${esc(report.reason)} (${report.checked} entries verified before it).</div>`
    : '';
  return page(
    v,
    'ledger',
    'Ledger',
    `${result}<p>Entries in the tenant's chain: <strong id="ledger-size">${size}</strong></p><h2>Latest signed checkpoint</h2>${cp}<h2>Verify</h2><p class="muted">Recomputes every entry's hash, the Merkle tree and each checkpoint's signature.</p><form method="post" action="/console/ledger/verify">${csrfField(v)}<button type="submit" id="verify">Verify the chain</button></form>${browser}`,
  );
}
