import { canonicalJson, sha256Hex } from '@aduana/shared';
import type { Principal } from '../identity/auth/principal.js';
import type { EventsLedger, LedgerEntry, LedgerInput } from '../ledger/index.js';
import { encodeCursor } from '../ledger/log/cursor.js';

/**
 * The admin actions chained in a tenant's ledger (docs/ledger.md, "Admin actions"), beside `tenant.plan_changed` and
 * `decision.resolved`, which are chained by their own code with their own payloads.
 */
export const ADMIN_ACTIONS = [
  'policy.created',
  'policy.updated',
  'policy.deleted',
  'policy.pack_applied',
  'token.created',
  'token.rotated',
  'token.revoked',
  'user.created',
  'user.disabled',
  'agent.suspended',
  'agent.resumed',
  'settings.request_log_updated',
  'credential.set',
  'credential.rotated',
  'credential.deleted',
  'routes.updated',
  'routes.deleted',
] as const;
export type AdminAction = (typeof ADMIN_ACTIONS)[number];

/** What the audit trail lists: the admin actions and the two changes chained elsewhere. */
export const AUDITED_EVENT_TYPES: readonly string[] = [...ADMIN_ACTIONS, 'tenant.plan_changed', 'decision.resolved'];

/** Who acted: the token or session id (`cli` for the command line) and the user behind it, if any. Never an e-mail. */
export interface Actor {
  readonly by: string;
  readonly user: string | null;
}

export const CLI_ACTOR: Actor = { by: 'cli', user: null };

export function actorOf(p: Pick<Principal, 'id' | 'userId'>): Actor {
  return { by: p.id, user: p.userId || null };
}

export interface AdminActionInput {
  readonly actor: Actor;
  readonly action: AdminAction;
  /** The id of what was acted on (a policy, token, user or agent id, a pack's name, a setting's or a credential's name). */
  readonly target: string;
  /** The object's public view before and after (null: it did not exist / no longer does). Only their digests are chained. */
  readonly before: unknown;
  readonly after: unknown;
}

/** Records an admin action in the tenant's chain: the ledger's (the embedded gateway), the control plane's own (docs/ledger.md). */
export type RecordAdminAction = (tenantId: string, input: AdminActionInput, traceId: string) => Promise<void>;

/** SHA-256 of the view's canonical JSON: it proves what the object was without keeping it in the ledger forever. */
export function viewDigest(view: unknown): string | null {
  return view === null || view === undefined ? null : sha256Hex(canonicalJson(view));
}

/**
 * The ledger entry. `decision` is null: an event posted to /v1/events always carries one, so an agent cannot post an
 * entry that passes for an admin action (the audit trail lists only entries without one).
 */
export function adminActionEntry(input: AdminActionInput, metadata: Record<string, unknown> = {}): LedgerInput {
  return {
    event_type: input.action,
    payload: {
      action: input.action,
      actor: { by: input.actor.by, user: input.actor.user },
      after: viewDigest(input.after),
      before: viewDigest(input.before),
      target: input.target,
    },
    metadata,
    decision: null,
  };
}

/** A token as its digest sees it: never its hash or any part of its value. */
export function tokenDigestView(t: { id: string; tenant_id: string; name: string; role: string; user_id: string; created_at: string; expires_at: string; revoked_at: string | null; agent_id?: string | null; rotated_to?: string }) {
  return {
    id: t.id,
    tenant_id: t.tenant_id,
    name: t.name,
    role: t.role,
    user_id: t.user_id,
    created_at: t.created_at,
    expires_at: t.expires_at,
    revoked_at: t.revoked_at,
    agent_id: t.agent_id ?? null,
    rotated_to: t.rotated_to ?? null,
  };
}

export interface AuditFilter {
  /** One event type of AUDITED_EVENT_TYPES, or null: all of them. */
  readonly action: string | null;
  /** Matches the actor's credential id or user id (for a resolution: who resolved it), or null. */
  readonly actor: string | null;
  /** Epoch ms bounds on created_at, inclusive; null: open. */
  readonly from: number | null;
  readonly to: number | null;
  /** Entries with seq below this (the previous page's last), or null: from the newest. */
  readonly before: number | null;
  readonly limit: number;
}

export interface AuditPage {
  readonly entries: LedgerEntry[];
  /** The seq to pass as `before` for the next page, or null when there is none. */
  readonly next: number | null;
}

/** Who an audited entry names as its actor: its actor, a plan change's `by`, a resolution's `resolved_by`. */
export function entryActor(e: LedgerEntry): { by: string; user: string | null } {
  const p = e.payload;
  const actor = p['actor'] as { by?: unknown; user?: unknown } | undefined;
  if (actor && typeof actor.by === 'string') return { by: actor.by, user: typeof actor.user === 'string' ? actor.user : null };
  if (typeof p['by'] === 'string') return { by: p['by'], user: null };
  const resolution = p['resolution'] as { resolved_by?: unknown } | null | undefined;
  if (resolution && typeof resolution.resolved_by === 'string') return { by: resolution.resolved_by, user: null };
  return { by: '', user: null };
}

const PAGE = 200;
/** Entries read per listing at most: admin actions are few, and a page must not turn into a scan of the whole chain. */
const SCAN_LIMIT = 20_000;

/**
 * The tenant's audited entries, newest first: the merge, by seq, of one descending listing per event type (each an
 * index range, so decisions in between are never read). Entries carrying a decision are an agent's posted events and
 * are skipped. The actor and time filters are applied to what is read.
 */
export function readAuditTrail(ledger: Pick<EventsLedger, 'list'>, tenantId: string, f: AuditFilter): AuditPage {
  const types = f.action !== null ? [f.action] : AUDITED_EVENT_TYPES;
  const streams = types.map((t) => descending(ledger, tenantId, t, f.before));
  const heads = streams.map((s) => s.next());
  const out: LedgerEntry[] = [];
  let read = 0;
  while (out.length <= f.limit && read < SCAN_LIMIT) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i]!;
      if (!h.done && (best < 0 || h.value.seq > (heads[best]!.value as LedgerEntry).seq)) best = i;
    }
    if (best < 0) break;
    const e = heads[best]!.value as LedgerEntry;
    heads[best] = streams[best]!.next();
    read++;
    if (auditEntryMatches(e, f)) out.push(e);
  }
  const more = out.length > f.limit;
  if (more) out.length = f.limit;
  return { entries: out, next: more ? out[out.length - 1]!.seq : null };
}

/** Whether an entry read is on the audit page: an audited entry without a decision, within the actor and time filters. */
export function auditEntryMatches(e: LedgerEntry, f: AuditFilter): boolean {
  if (e.decision !== null) return false;
  const at = Date.parse(e.created_at);
  if (f.from !== null && at < f.from) return false;
  if (f.to !== null && at > f.to) return false;
  if (f.actor !== null) {
    const a = entryActor(e);
    if (a.by !== f.actor && a.user !== f.actor) return false;
  }
  return true;
}

function* descending(ledger: Pick<EventsLedger, 'list'>, tenantId: string, eventType: string, before: number | null): Generator<LedgerEntry, void> {
  let cursor: string | null = before !== null ? encodeCursor('desc', before) : null;
  for (;;) {
    const page = ledger.list(tenantId, { limit: PAGE, order: 'desc', eventType, cursor });
    yield* page.events;
    if (page.cursor === null) return;
    cursor = page.cursor;
  }
}
