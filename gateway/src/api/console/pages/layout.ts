import { esc } from '../html-headers.js';
import type { Principal } from '../../../identity/auth/principal.js';

export interface Viewer {
  principal: Principal;
  /** The session's CSRF token: every state-changing form carries it. */
  csrf: string;
}

const PAGES = [
  ['overview', '/console', 'Overview'],
  ['decisions', '/console/decisions', 'Decisions'],
  ['agents', '/console/agents', 'Agents'],
  ['costs', '/console/costs', 'Costs'],
  ['policies', '/console/policies', 'Policies'],
  ['routes', '/console/routes', 'Routes'],
  ['ledger', '/console/ledger', 'Ledger'],
  ['audit', '/console/audit', 'Audit trail'],
  ['tokens', '/console/tokens', 'Tokens'],
  ['users', '/console/users', 'Users'],
  ['settings', '/console/settings', 'Settings'],
] as const;

/** Pages only admins may open: not offered to anyone else. */
const ADMIN_ONLY: ReadonlySet<string> = new Set(['tokens', 'users']);

export type PageName = (typeof PAGES)[number][0];

/** The hidden field of a state-changing form. */
export function csrfField(v: Viewer): string {
  return `<input type="hidden" name="csrf" value="${esc(v.csrf)}">`;
}

function head(title: string, extraHead = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)} · aduana</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/console/assets/console.css">${extraHead}</head>`;
}

/**
 * Each table of a page inside a focusable, named region that scrolls sideways on its own (console.css), so a wide table
 * never makes the page wider than a phone's screen and keyboard users can scroll it too.
 */
function scrollableTables(title: string, body: string): string {
  let n = 0;
  return body
    .replace(/<table\b/g, () => `<div class="table-scroll" tabindex="0" role="region" aria-label="${esc(title)}, table ${++n}"><table`)
    .replace(/<\/table>/g, '</table></div>');
}

/** A signed-in page: navigation, who is signed in, sign-out form, the page's body. */
export function page(v: Viewer, active: PageName, title: string, body: string, opts: { charts?: boolean } = {}): string {
  const admin = v.principal.scopes.includes('admin:manage');
  const nav = PAGES.filter(([name]) => admin || !ADMIN_ONLY.has(name)).map(([name, href, label]) => `<a href="${href}"${name === active ? ' class="active"' : ''}>${label}</a>`).join('');
  const charts = opts.charts ? '<link rel="stylesheet" href="/console/assets/uplot.css"><script src="/console/assets/uplot.js" defer></script><script src="/console/assets/console.js" defer></script>' : '';
  const p = v.principal;
  return `${head(title, charts)}<body data-page="${active}"><header><span class="brand">aduana</span><nav>${nav}</nav><div class="who"><span id="who">${esc(p.email || p.id)} · ${esc(p.role)} · ${esc(p.tenantId)}</span><form class="inline" method="post" action="/console/logout">${csrfField(v)}<button type="submit">Sign out</button></form></div></header><main><h1>${esc(title)}</h1>${scrollableTables(title, body)}</main></body></html>`;
}

/** A page for someone not signed in (the sign-in form, an error). */
export function bare(title: string, body: string): string {
  return `${head(title)}<body><main>${body}</main></body></html>`;
}
