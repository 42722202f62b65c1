import type { Role } from '../../../identity/auth/principal.js';
import type { UserRecord } from '../../../identity/users/user-record.js';
import { esc } from '../html-headers.js';
import { csrfField, page, type Viewer } from './layout.js';

/** The create form's fields as typed (re-shown after a refusal; a typed password never is). */
export interface UserForm {
  email: string;
  name: string;
  role: string;
  generate: boolean;
}

export interface UsersView {
  /** The tenant's newest users, newest first (at most `limit` of `total`). */
  users: readonly UserRecord[];
  total: number;
  roles: readonly Role[];
  minPasswordLength: number;
  form: UserForm;
  /** Why the last create or disable was refused, or ''. */
  error: string;
  notice: string;
  /** The user just created, and the generated password, shown on this one answer only (null: the admin typed it). */
  created: { user: UserRecord; password: string | null } | null;
}

function row(v: Viewer, u: UserRecord): string {
  const self = u.id === v.principal.userId;
  const action = u.disabled_at
    ? ''
    : self
      ? '<span class="muted">you</span>'
      : `<form class="inline" method="post" action="/console/users/${encodeURIComponent(u.id)}/disable">${csrfField(v)}<button type="submit" class="secondary" data-disable="${esc(u.id)}">Disable<span class="visually-hidden"> ${esc(u.email)}</span></button></form>`;
  return `<tr data-user="${esc(u.id)}"><td>${esc(u.email)}</td><td>${esc(u.name)}</td><td>${esc(u.role)}</td><td>${esc(u.provider)}</td><td class="mono">${esc(u.created_at)}</td><td class="state">${u.disabled_at ? `disabled <time datetime="${esc(u.disabled_at)}">${esc(u.disabled_at)}</time>` : 'active'}</td><td>${action}</td></tr>`;
}

function createdNotice(c: { user: UserRecord; password: string | null }): string {
  const u = c.user;
  const password = c.password === null ? '' : `<p>Its generated password is shown only this once: hand it over now.</p><label for="new-password">Initial password<input id="new-password" class="mono" readonly value="${esc(c.password)}" autocomplete="off" spellcheck="false"></label>`;
  return `<div class="notice ok" id="created-user" role="status"><p>User <strong>${esc(u.email)}</strong> (${esc(u.role)}) created; they sign in at <code>/console/login</code>.</p>${password}</div>`;
}

/** The tenant's users (admins only): list, create with a typed or generated password, disable. */
export function usersPage(v: Viewer, s: UsersView): string {
  const f = s.form;
  const roles = s.roles.map((r) => `<option value="${esc(r)}"${r === f.role ? ' selected' : ''}>${esc(r)}</option>`).join('');
  const error = s.error ? `<div class="notice bad" id="form-error" role="alert">${esc(s.error)}</div>` : '';
  const notice = s.notice ? `<div class="notice ok" id="notice" role="status">${esc(s.notice)}</div>` : '';
  const form = `<h2>New user</h2><form method="post" action="/console/users" class="filters" id="create-user">${csrfField(v)}
<label for="user-email">E-mail<input id="user-email" name="email" type="email" value="${esc(f.email)}" maxlength="320" required></label>
<label for="user-name">Name<input id="user-name" name="name" value="${esc(f.name)}" maxlength="200" required></label>
<label for="user-role">Role<select id="user-role" name="role">${roles}</select></label>
<fieldset><legend>Initial password</legend>
<label for="password-generate"><input type="radio" id="password-generate" name="password_mode" value="generate"${f.generate ? ' checked' : ''}> Generate one (shown once)</label>
<label for="password-typed"><input type="radio" id="password-typed" name="password_mode" value="typed"${f.generate ? '' : ' checked'}> This one (at least ${s.minPasswordLength} characters):</label>
<label for="user-password" class="visually-hidden">Password</label><input id="user-password" name="password" type="password" autocomplete="new-password">
</fieldset>
<button type="submit" id="create-user-button">Create user</button></form>`;
  const shown = s.total > s.users.length ? `<p class="muted" id="user-count">The newest ${s.users.length} of ${s.total} users; the rest with <code>aduana user list</code>.</p>` : '';
  const rows = s.users.map((u) => row(v, u)).join('');
  return page(
    v,
    'users',
    'Users',
    `${error}${s.created ? createdNotice(s.created) : ''}${notice}<p class="muted">The people who sign in to this tenant. A disabled user's sessions and tokens stop working at once; you cannot disable yourself.</p>${form}<h2>Users</h2>${shown}<table id="users"><thead><tr><th>E-mail</th><th>Name</th><th>Role</th><th>Sign-in</th><th>Created</th><th>State</th><th><span class="visually-hidden">Disable</span></th></tr></thead><tbody>${rows || '<tr><td colspan="7" class="muted">No user yet.</td></tr>'}</tbody></table>`,
  );
}
