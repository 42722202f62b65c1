import RE2 from 're2';

/** RE2's metacharacters: escaped, so that every other character of a glob is itself. */
const META = /[\\.+*?()|[\]{}^$]/;

/**
 * A tool name as tool_access compares it: NFKC-normalised and case-folded, so `DROP_TABLE`, `Drop_Table` and the
 * full-width `ｄｒｏｐ＿ｔａｂｌｅ` are the name `drop_table` (a server may read them as one; a policy must not read
 * them as three). Upper then lower case folds what lower case alone keeps apart (`ß` and `ss`, `ς` and `σ`). An ASCII
 * name, the usual one, is only lower-cased.
 */
export function foldToolName(name: string): string {
  if (isAscii(name)) return name.toLowerCase();
  return name.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * The RE2 source of one tool-name glob: `*` is any run of characters (none included), `?` one character, everything
 * else literal (`.`, `/`, `[`, `{` and `!` too: tool names are not paths, and `crm.delete_*` means what it says), and
 * folded as names are (foldToolName), so the glob matches a name's folded form.
 */
export function globSource(glob: string): string {
  let out = '';
  let star = false;
  let literal = '';
  const flush = () => {
    // By code point: `?` is one character even outside the Basic Multilingual Plane.
    for (const ch of foldToolName(literal)) out += META.test(ch) ? `\\${ch}` : ch;
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
 * A list of globs as one RE2 anchored at both ends, matching a folded name (foldToolName) any of them matches. Built when the policy set is
 * compiled, never per request; RE2 runs in time linear in the name, so no glob (`*a*a*a*b`) can stall a request.
 */
export function compileGlobs(globs: readonly string[]): RE2 {
  // (?s): `.` is any character, a newline included.
  return new RE2(`(?s)^(?:${globs.map(globSource).join('|')})$`, 'u');
}
