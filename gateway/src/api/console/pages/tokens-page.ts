import type { TokenRecord } from '../../../identity/auth/token-store.js';
import type { Role } from '../../../identity/auth/principal.js';
import { esc } from '../html-headers.js';
import { csrfField, page, type Viewer } from './layout.js';

/** The create form's fields as typed (re-shown after a refusal). */
export interface TokenForm {
  name: string;
  role: string;
  expiresInDays: string;
  agentId: string;
}

export interface TokensView {
  /** The tenant's newest tokens, newest first (at most `limit` of `total`). */
  tokens: readonly TokenRecord[];
  total: number;
  roles: readonly Role[];
  maxDays: number;
  /** When the admin's login session ends: a token made from it expires then at the latest, as with POST /token. */
  sessionEnds: string | null;
  /** The create form's one-time id: a reload that sends the form again makes no second token. */
  once: string;
  form: TokenForm;
  /** Why the last create was refused (the API's message), or ''. */
  error: string;
  notice: string;
  /** The token just created: its secret, shown on this one answer only. */
  created: { token: string; record: TokenRecord } | null;
  now: number;
  /** False for an enterprise tenant: its tokens come from its account manager, and the page offers no form. */
  selfService: boolean;
}

function state(t: TokenRecord, now: number): string {
  if (t.revoked_at) return `revoked <time datetime="${esc(t.revoked_at)}">${esc(t.revoked_at)}</time>`;
  const rotated = t.rotated_to ? `rotated to <span class="mono">${esc(t.rotated_to)}</span>` : '';
  if (Date.parse(t.expires_at) <= now) return rotated ? `${rotated}, expired` : 'expired';
  return rotated ? `${rotated}, live until it expires` : 'live';
}

function live(t: TokenRecord, now: number): boolean {
  return !t.revoked_at && Date.parse(t.expires_at) > now;
}

function row(v: Viewer, t: TokenRecord, now: number): string {
  const revoke = live(t, now)
    ? `<form class="inline" method="post" action="/console/tokens/${encodeURIComponent(t.id)}/revoke">${csrfField(v)}<button type="submit" class="secondary" data-revoke="${esc(t.id)}">Revoke<span class="visually-hidden"> ${esc(t.name)}</span></button></form>`
    : '';
  return `<tr data-token="${esc(t.id)}"><td>${esc(t.name)}</td><td class="mono">${esc(t.id)}</td><td>${esc(t.role)}</td><td>${t.agent_id ? esc(t.agent_id) : '<span class="muted">any</span>'}</td><td class="mono">${esc(t.created_at)}</td><td class="mono">${esc(t.expires_at)}</td><td class="state">${state(t, now)}</td><td>${revoke}</td></tr>`;
}

function createdNotice(c: { token: string; record: TokenRecord }): string {
  const r = c.record;
  return `<div class="notice ok" id="created-token" role="status"><p>Token <strong>${esc(r.name)}</strong> (${esc(r.role)}${r.agent_id ? `, bound to agent ${esc(r.agent_id)}` : ''}) created; it expires ${esc(r.expires_at)}. Copy it now: it is shown only this once and cannot be shown again.</p><label for="new-token">New token<input id="new-token" class="mono" readonly value="${esc(c.token)}" autocomplete="off" spellcheck="false"></label></div>`;
}

/** The tenant's personal access tokens (admins only): list, create (secret shown once), revoke. */
export function tokensPage(v: Viewer, s: TokensView): string {
  const f = s.form;
  const roles = s.roles.map((r) => `<option value="${esc(r)}"${r === f.role ? ' selected' : ''}>${esc(r)}</option>`).join('');
  const error = s.error ? `<div class="notice bad" id="form-error" role="alert">${esc(s.error)}</div>` : '';
  const notice = s.notice ? `<div class="notice ok" id="notice" role="status">${esc(s.notice)}</div>` : '';
  const form = !s.selfService
    ? `<h2>New token</h2><p class="notice" id="self-service-disabled">This tenant is on the enterprise plan: its tokens are issued by its account manager, not made here (an admin token with <code>POST /token</code>, or <code>aduana token create</code>). Tokens can still be revoked here.</p>`
    : `<h2>New token</h2><form method="post" action="/console/tokens" class="filters" id="create-token">${csrfField(v)}<input type="hidden" name="once" value="${esc(s.once)}">
<label for="token-name">Name<input id="token-name" name="name" value="${esc(f.name)}" maxlength="200" required></label>
<label for="token-role">Role<select id="token-role" name="role">${roles}</select></label>
<label for="token-days">Expires in (days, 1 to ${s.maxDays})<input id="token-days" name="expires_in_days" type="number" min="1" max="${s.maxDays}" value="${esc(f.expiresInDays)}" required></label>
<label for="token-agent">Bound to agent (optional)<input id="token-agent" name="agent_id" value="${esc(f.agentId)}" maxlength="256"></label>
<button type="submit" id="create-token-button">Create token</button></form>${s.sessionEnds ? `<p class="muted" id="session-bound">A token made here expires when your sign-in session does (<time datetime="${esc(s.sessionEnds)}">${esc(s.sessionEnds)}</time>) at the latest, as one made with <code>POST /token</code> from a session: a sign-in never turns into longer access. For a longer-lived token, use an admin token with <code>POST /token</code> or <code>aduana token create</code>.</p>` : ''}`;
  const shown = s.total > s.tokens.length ? `<p class="muted" id="token-count">The newest ${s.tokens.length} of ${s.total} tokens; the rest with <code>aduana token list</code>.</p>` : '';
  const rows = s.tokens.map((t) => row(v, t, s.now)).join('');
  return page(
    v,
    'tokens',
    'Tokens',
    `${error}${s.created ? createdNotice(s.created) : ''}${notice}<p class="muted">The tenant's personal access tokens. A token's secret is shown once, when it is made; only its hash is kept. Revoking takes effect at once.</p>${form}<h2>Tokens</h2>${shown}<table id="tokens"><thead><tr><th>Name</th><th>Id</th><th>Role</th><th>Agent</th><th>Created</th><th>Expires</th><th>State</th><th><span class="visually-hidden">Revoke</span></th></tr></thead><tbody>${rows || '<tr><td colspan="8" class="muted">No token yet.</td></tr>'}</tbody></table>`,
  );
}
