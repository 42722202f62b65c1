/**
 * A small robots.txt parser after RFC 9309: groups of user-agent lines with allow/disallow rules, longest match wins,
 * allow wins a tie, `*` and `$` wildcards. It also keeps what the checks report on: sitemaps, lines it did not
 * understand (for the validity check, like Lighthouse's robots-txt audit) and the AI-preference lines that sites add
 * (`Content-Signal`, `Content-Usage`). Not robots-parser: it answers only whether a URL is allowed, while the checks
 * need the groups themselves (does a crawler have a group of its own), the lines it did not understand, the
 * AI-preference lines and caps on what a target's file may make the matcher do.
 */

export interface RobotsRule {
  readonly allow: boolean;
  readonly path: string;
}

export interface RobotsGroup {
  /** Lower-case product tokens. */
  readonly agents: readonly string[];
  readonly rules: readonly RobotsRule[];
}

export interface RobotsTxt {
  readonly groups: readonly RobotsGroup[];
  readonly sitemaps: readonly string[];
  /** Raw values of Content-Signal / Content-Usage lines. */
  readonly contentSignals: readonly string[];
  /** Lines that are neither comments, blank, nor a known directive: (line number, text). */
  readonly invalidLines: readonly { line: number; text: string }[];
}

const KNOWN = new Set(['user-agent', 'allow', 'disallow', 'sitemap', 'crawl-delay', 'host', 'clean-param', 'noindex', 'request-rate', 'visit-time']);
const SIGNALS = new Set(['content-signal', 'content-usage']);

/** Caps on what one robots.txt may make the matcher do (the target writes it). */
export interface RobotsBounds {
  readonly robotsMaxRules: number;
  readonly robotsMaxRuleLength: number;
}

const UNBOUNDED: RobotsBounds = { robotsMaxRules: Infinity, robotsMaxRuleLength: Infinity };

export function parseRobotsTxt(text: string, bounds: RobotsBounds = UNBOUNDED): RobotsTxt {
  let rules = 0;
  const groups: { agents: string[]; rules: RobotsRule[] }[] = [];
  const sitemaps: string[] = [];
  const contentSignals: string[] = [];
  const invalidLines: { line: number; text: string }[] = [];
  let current: { agents: string[]; rules: RobotsRule[] } | undefined;
  let lastWasAgent = false;
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/#.*$/, '').trim();
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) {
      invalidLines.push({ line: i + 1, text: line });
      continue;
    }
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (key === 'allow' || key === 'disallow') {
      if (!current || value.length > bounds.robotsMaxRuleLength) invalidLines.push({ line: i + 1, text: line });
      // An empty Disallow allows everything: no rule needed. Rules past the cap are ignored.
      else if (value !== '' && rules < bounds.robotsMaxRules) {
        current.rules.push({ allow: key === 'allow', path: value });
        rules++;
      }
    } else if (key === 'sitemap') sitemaps.push(value);
    else if (SIGNALS.has(key)) contentSignals.push(`${line.slice(0, colon).trim()}: ${value}`);
    else if (!KNOWN.has(key)) invalidLines.push({ line: i + 1, text: line });
  }
  return { groups, sitemaps, contentSignals, invalidLines };
}

/** The group that governs `agent` (RFC 9309 §2.2.1: case-insensitive token match, else `*`); undefined when none. */
export function groupFor(robots: RobotsTxt, agent: string): RobotsGroup | undefined {
  const token = agent.toLowerCase();
  return robots.groups.find((g) => g.agents.includes(token)) ?? robots.groups.find((g) => g.agents.includes('*'));
}

/** True when `agent` names itself in a group of its own (an explicit decision about that crawler). */
export function namesAgent(robots: RobotsTxt, agent: string): boolean {
  const token = agent.toLowerCase();
  return robots.groups.some((g) => g.agents.includes(token));
}

/**
 * Whether a robots.txt pattern (`*` any run of characters, a final `$` the end of the path) matches the start of
 * `path`. The pattern is a target's text, so no RegExp is built from it: the literal pieces between stars are found
 * left to right, each at its first occurrence after the previous one. That first occurrence is always safe to take
 * (any later match of the rest also fits after it), so there is no backtracking, only forward indexOf scans.
 */
export function matchesRobotsPattern(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const pieces = (anchored ? pattern.slice(0, -1) : pattern).split('*');
  const first = pieces[0] ?? '';
  if (pieces.length === 1) return anchored ? path === first : path.startsWith(first);
  if (!path.startsWith(first)) return false;
  const last = pieces[pieces.length - 1] ?? '';
  // With `$` the last piece must end the path; it is placed first so the middle pieces must fit before it.
  const end = anchored ? path.length - last.length : path.length;
  if (end < first.length || (anchored && !path.endsWith(last))) return false;
  let at = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i] ?? '';
    if (piece === '') continue;
    const found = path.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  if (anchored) return at <= end;
  return last === '' || path.indexOf(last, at) >= 0;
}

function matchLength(pattern: string, path: string): number {
  return matchesRobotsPattern(pattern, path) ? pattern.length : -1;
}

/** Whether `agent` may fetch `path` (path plus query), per the longest matching rule; allowed when nothing matches. */
export function isAllowed(robots: RobotsTxt, agent: string, path: string): boolean {
  const group = groupFor(robots, agent);
  if (!group) return true;
  let best = -1;
  let allowed = true;
  for (const rule of group.rules) {
    const len = matchLength(rule.path, path);
    if (len > best || (len === best && len >= 0 && rule.allow)) {
      best = len;
      allowed = rule.allow;
    }
  }
  return allowed;
}
