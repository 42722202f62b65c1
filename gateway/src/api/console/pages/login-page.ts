import { esc } from '../html-headers.js';
import { bare } from './layout.js';

/** The sign-in form (password) and, when configured, the identity provider's button. */
export function loginPage(opts: { csrf: string; idp: boolean; error?: string; email?: string }): string {
  const error = opts.error ? `<div class="notice bad" id="login-error">${esc(opts.error)}</div>` : '';
  const idp = opts.idp ? '<div class="or">or</div><a class="idp" id="idp" href="/auth/idp">Sign in with the identity provider</a>' : '';
  return bare(
    'Sign in',
    `<div class="login"><h1>aduana console</h1>${error}<form method="post" action="/console/login"><input type="hidden" name="csrf" value="${esc(opts.csrf)}"><label>E-mail<input type="email" name="email" autocomplete="username" required value="${esc(opts.email ?? '')}"></label><label>Password<input type="password" name="password" autocomplete="current-password" required></label><button type="submit">Sign in</button></form>${idp}</div>`,
  );
}
