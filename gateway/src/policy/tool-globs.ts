import { GatewayError } from '../errors.js';
import RE2 from 're2';

/** RE2's metacharacters: escaped, so that every other character of a glob is itself. */
const META = /[\\.+*?()|[\]{}^$]/;

/** Globs per list, and characters per glob: each list is one RE2 per policy, built at every policy change. */
export const MAX_GLOBS = 100;
export const MAX_GLOB_CHARS = 200;

/** The JSON Schema of a list of name globs (tool_access's and model_access's `allow` and `deny`). */
export const GLOB_LIST_SCHEMA = { type: 'array', minItems: 1, maxItems: MAX_GLOBS, items: { type: 'string', minLength: 1, maxLength: MAX_GLOB_CHARS } };

/**
 * A tool or model name as tool_access and model_access compare it: NFKC-normalised and case-folded, so `DROP_TABLE`,
 * `Drop_Table` and the full-width `ｄｒｏｐ＿ｔａｂｌｅ` are the name `drop_table` (a server may read them as one; a
 * policy must not read them as three). Upper then lower case folds what lower case alone keeps apart (`ß` and `ss`,
 * `ς` and `σ`). An ASCII name, the usual one, is only lower-cased.
 */
export function foldName(name: string): string {
  if (isAscii(name)) return name.toLowerCase();
  return name.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * The RE2 source of one name glob: `*` is any run of characters (none included), `?` one character, everything else
 * literal (`.`, `/`, `[`, `{` and `!` too: names are not paths, and `crm.delete_*` means what it says), and folded as
 * names are (foldName), so the glob matches a name's folded form.
 */
export function globSource(glob: string): string {
  let out = '';
  let star = false;
  let literal = '';
  const flush = () => {
    // By code point: `?` is one character even outside the Basic Multilingual Plane.
    for (const ch of foldName(literal)) out += META.test(ch) ? `\\${ch}` : ch;
    literal = '';
  };
  for (const ch of glob) {
    if (ch === '*') {
      flush();
      // `**` is `*`: one `.*` keeps the program small.
      if (!star) out += '.*';
      star = true;
      continue;
    }
    star = false;
    if (ch === '?') {
      flush();
      out += '.';
    } else literal += ch;
  }
  flush();
  return out;
}

/**
 * A list of globs as one RE2 anchored at both ends, matching a folded name (foldName) any of them matches. Built when
 * the policy set is compiled, never per request; RE2 runs in time linear in the name, so no glob (`*a*a*a*b`) can stall a request.
 */
export function compileGlobs(globs: readonly string[]): RE2 {
  // (?s): `.` is any character, a newline included.
  return new RE2(`(?s)^(?:${globs.map(globSource).join('|')})$`, 'u');
}

/** The rules every allow/deny glob kind shares (tool_access, model_access): at least one list, and the verdict. */
export interface GlobAccessRules {
  allow?: string[];
  deny?: string[];
  action: 'DENY' | 'REQUIRE_APPROVAL';
}

/** An allow/deny glob policy as the evaluator holds it: each list compiled to one RE2 (null: not given). */
export function globAccessRule(p: { readonly id: string; readonly risk: number; readonly rules: GlobAccessRules }): { id: string; risk: number; action: GlobAccessRules['action']; allow: RE2 | null; deny: RE2 | null } {
  const r = p.rules;
  return { id: p.id, risk: p.risk, action: r.action, allow: r.allow ? compileGlobs(r.allow) : null, deny: r.deny ? compileGlobs(r.deny) : null };
}

/** Refuses (400) an allow/deny glob policy with neither list: it could never trigger. */
export function requireAllowOrDeny(type: string, rules: { readonly allow?: unknown; readonly deny?: unknown }): void {
  if (rules.allow === undefined && rules.deny === undefined) {
    throw new GatewayError('invalid_request', `rules: missing required field "allow" or "deny" (a ${type} policy needs at least one)`);
  }
}
