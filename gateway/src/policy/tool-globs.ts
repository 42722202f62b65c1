import RE2 from 're2';

/** RE2's metacharacters: escaped, so that every other character of a glob is itself. */
const META = /[\\.+*?()|[\]{}^$]/;

/**
 * The RE2 source of one tool-name glob: `*` is any run of characters (none included), `?` one character, everything
 * else literal (`.`, `/`, `[`, `{` and `!` too: tool names are not paths, and `crm.delete_*` means what it says).
 */
export function globSource(glob: string): string {
  let out = '';
  let star = false;
  // By code point: `?` is one character even outside the Basic Multilingual Plane.
  for (const ch of glob) {
    if (ch === '*') {
      // `**` is `*`: one `.*` keeps the program small.
      if (!star) out += '.*';
      star = true;
      continue;
    }
    star = false;
    if (ch === '?') out += '.';
    else out += META.test(ch) ? `\\${ch}` : ch;
  }
  return out;
}

/**
 * A list of globs as one RE2 anchored at both ends, matching a name any of them matches. Built when the policy set is
 * compiled, never per request; RE2 runs in time linear in the name, so no glob (`*a*a*a*b`) can stall a request.
 */
export function compileGlobs(globs: readonly string[]): RE2 {
  // (?s): `.` is any character, a newline included.
  return new RE2(`(?s)^(?:${globs.map(globSource).join('|')})$`, 'u');
}
