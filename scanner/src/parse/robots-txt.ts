/**
 * A small robots.txt parser after RFC 9309: groups of user-agent lines with allow/disallow rules, longest match wins,
 * allow wins a tie, `*` and `$` wildcards. It also keeps what the checks report on: sitemaps, lines it did not
 * understand (for the validity check, like Lighthouse's robots-txt audit) and the AI-preference lines that sites add
 * (`Content-Signal`, `Content-Usage`).
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

export function parseRobotsTxt(text: string): RobotsTxt {
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
      if (!current) invalidLines.push({ line: i + 1, text: line });
      // An empty Disallow allows everything: no rule needed.
      else if (value !== '') current.rules.push({ allow: key === 'allow', path: value });
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

function matchLength(pattern: string, path: string): number {
  // Wildcards are rare; the plain prefix case is the common one.
  if (!pattern.includes('*') && !pattern.endsWith('$')) return path.startsWith(pattern) ? pattern.length : -1;
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const source = body
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}${anchored ? '$' : ''}`).test(path) ? pattern.length : -1;
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
