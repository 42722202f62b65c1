import type { DecisionRecord } from '../../governance/decisions/decision-store.js';
import type { Verdict } from '../../policy/verdict.js';

/** The decisions list's filters (docs/console.md, "Working the lists"). */
export interface DecisionFilter {
  verdict: Verdict | '';
  /** An agent id, exactly; '' for any. */
  agent: string;
  /** Rule ids a decision must name as its deciding rule or among the rules that fired (the typed rule and the ids of policies of that name); empty for any. */
  rules: ReadonlySet<string>;
  /** A decision id or trace id (exact), or the start of an agent id; '' for none. */
  search: string;
  /** Epoch ms bounds on created_at, inclusive; -Infinity / Infinity when open. */
  from: number;
  to: number;
  /** The previous page's last decision id (the cursor): only older decisions. null: from the newest. */
  before: string | null;
  limit: number;
}

export interface DecisionListPage {
  rows: DecisionRecord[];
  /** The cursor of the next (older) page, or null when there is none. */
  next: string | null;
  /** Decisions read for this page. */
  scanned: number;
  /** false when the scan limit stopped the read before the filters' range was exhausted (`next` then resumes it). */
  complete: boolean;
}

/** A decision id as the gateway makes them (`dec_` and a ULID). */
export const DECISION_ID = /^dec_[0-9A-Za-z]{1,64}$/;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/**
 * An id is made as its decision starts and created_at is set when it is recorded: at once for a decided action, when
 * the call ends for a proxied or MCP call (so up to a call's length later; decision-entry.ts allows as much).
 */
const ID_AFTER_MS = 1_000;
const ID_BEFORE_MS = 15 * 60_000;
/** Decisions read per store call while a filtered page scans. */
const CHUNK = 500;

/** Every id of decisions made before `ms` sorts before this one (a ULID starts with its 48-bit millisecond time). */
function idBefore(ms: number): string {
  let t = Math.max(0, Math.min(2 ** 48 - 1, Math.floor(ms)));
  let s = '';
  for (let i = 0; i < 10; i++) {
    s = CROCKFORD[t % 32]! + s;
    t = Math.floor(t / 32);
  }
  return `dec_${s}`;
}

/** Whether a page reads only the rows it shows (no filter but time: the store's key order is time order). */
export function readsOnlyItsRows(f: DecisionFilter): boolean {
  return !f.verdict && !f.agent && f.rules.size === 0 && !f.search;
}

/** Where a page's read starts: below its cursor, and below the ids of decisions made after `to`. */
export function startBelow(f: DecisionFilter): string | undefined {
  const byTime = Number.isFinite(f.to) ? idBefore(f.to + 1 + ID_AFTER_MS) : undefined;
  if (f.before === null) return byTime;
  return byTime !== undefined && byTime < f.before ? byTime : f.before;
}

function matches(d: DecisionRecord, f: DecisionFilter): boolean {
  if (f.verdict && d.execution_status !== f.verdict) return false;
  if (f.agent && d.agent_id !== f.agent) return false;
  if (f.rules.size > 0 && !f.rules.has(d.rule) && !d.triggered.some((t) => f.rules.has(t.policyId))) return false;
  if (f.search && d.decision_id !== f.search && d.trace_id !== f.search && !d.agent_id.startsWith(f.search)) return false;
  return true;
}

function inRange(d: DecisionRecord, f: DecisionFilter): boolean {
  const at = Date.parse(d.created_at);
  return at >= f.from && at <= f.to;
}

/**
 * One page of the tenant's decisions, newest first, from a reader of the store's key order (newest first, below an
 * id). Unfiltered it reads the page's rows and one more; filtered it reads at most `scanLimit` decisions, and a page
 * stopped by that limit says so and its cursor resumes the scan where it stopped. A decision id searched for is one
 * read.
 */
export function pageDecisions(
  recent: (limit: number, below: string | undefined) => DecisionRecord[],
  get: (id: string) => DecisionRecord | undefined,
  f: DecisionFilter,
  scanLimit: number,
): DecisionListPage {
  if (DECISION_ID.test(f.search)) {
    const d = get(f.search);
    const shown = d !== undefined && matches(d, f) && inRange(d, f) && (f.before === null || d.decision_id < f.before);
    return { rows: shown ? [d] : [], next: null, scanned: d ? 1 : 0, complete: true };
  }
  const want = f.limit + 1;
  const budget = Math.max(scanLimit, want);
  const out: DecisionRecord[] = [];
  let below = startBelow(f);
  let scanned = 0;
  let complete = true;
  for (;;) {
    const chunk = Math.min(readsOnlyItsRows(f) ? want : CHUNK, budget - scanned);
    const batch = recent(chunk, below);
    let stop = batch.length < chunk;
    for (const d of batch) {
      scanned++;
      below = d.decision_id;
      const at = Date.parse(d.created_at);
      if (at < f.from - ID_BEFORE_MS) {
        stop = true;
        break;
      }
      if (at < f.from || at > f.to || !matches(d, f)) continue;
      out.push(d);
      if (out.length === want) break;
    }
    if (out.length === want || stop) break;
    if (scanned >= budget) {
      complete = false;
      break;
    }
  }
  if (out.length === want) {
    out.pop();
    return { rows: out, next: out[out.length - 1]!.decision_id, scanned, complete: true };
  }
  return { rows: out, next: complete ? null : (below ?? null), scanned, complete };
}

/** The opaque cursor of a page's last decision id, and back (null: not one this list made). */
export function encodeDecisionCursor(id: string): string {
  return Buffer.from(`d${id}`).toString('base64url');
}

export function decodeDecisionCursor(cursor: string): string | null {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  return text.startsWith('d') && DECISION_ID.test(text.slice(1)) ? text.slice(1) : null;
}
