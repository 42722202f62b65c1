import { uuid } from '@aduana/shared';
import { ScannerError } from '../errors.js';
import { spendInTransaction } from '../quota/key-quota.js';
import type { MonitorRecord, RunRecord, ScannerStore } from '../storage/scanner-store.js';

/** A monitor as the API shows it (docs/scanner.md, "Monitors"). */
export interface MonitorView {
  readonly id: string;
  readonly url: string;
  readonly profile: string;
  readonly cadenceHours: number;
  readonly active: boolean;
  readonly createdAt: string;
  readonly nextRunAt: string | null;
  readonly lastRunAt: string | null;
  readonly lastScanId: string | null;
  readonly lastScore: number | null;
  readonly running: boolean;
}

export function monitorView(m: MonitorRecord, now: number): MonitorView {
  return {
    id: m.id,
    url: m.url,
    profile: m.profile,
    cadenceHours: m.cadenceHours,
    active: m.active,
    createdAt: m.createdAt,
    nextRunAt: m.active ? new Date(m.nextRunAt).toISOString() : null,
    lastRunAt: m.lastRunAt,
    lastScanId: m.lastScanId,
    lastScore: m.lastScore,
    running: m.lease !== null && m.lease.expiresAt > now,
  };
}

const ID_END = '\uffff';
const HOUR_MS = 3_600_000;

export function orgMonitors(store: ScannerStore, orgId: string): MonitorRecord[] {
  const out: MonitorRecord[] = [];
  for (const { value } of store.monitors.getRange({ start: [orgId, ''], end: [orgId, ID_END] })) out.push(value);
  return out;
}

/** The longest a deleted monitor keeps its place in the organisation's limit (docs/scanner.md, "Monitors"). */
const SLOT_HELD_MAX_MS = 24 * HOUR_MS;

/**
 * Until when a monitor deleted at `now` still counts in its organisation's limit: until its next run would have
 * started (one cadence after its creation if it never ran), 24 h after the deletion at most. Deleting and creating
 * again therefore never runs a place in the limit more often than a monitor kept in it would run.
 */
function slotHeldUntil(m: MonitorRecord, now: number): number {
  const nextRun = Math.max(m.nextRunAt, Date.parse(m.createdAt) + m.cadenceHours * HOUR_MS);
  return Math.min(nextRun, now + SLOT_HELD_MAX_MS);
}

/** Whether a monitor counts in its organisation's limit at `now`: active, or deleted and still holding its place. */
function holdsSlot(m: MonitorRecord, now: number): boolean {
  return m.active || (m.slotHeldUntil ?? 0) > now;
}

export interface MonitorLimits {
  /** Monitors an organisation may have holding a place (SCANNER_MAX_MONITORS_PER_ORG): past it 400. */
  readonly maxPerOrg: number;
  /** Monitors one key may create per clock hour (SCANNER_KEY_MONITOR_CREATIONS_PER_HOUR): past it 429. */
  readonly creationsPerHour: number;
}

/**
 * Stores a new monitor, due at once (its first run is the baseline later runs compare with). In one transaction: 400
 * when the organisation's places are taken, else 429 when the key has created its hour's monitors, else the creation
 * is counted and the monitor written; a refusal counts and writes nothing.
 */
export async function createMonitor(
  store: ScannerStore,
  fields: { orgId: string; keyId: string; url: string; profile: string; cadenceHours: number },
  limits: MonitorLimits,
  now: number,
): Promise<MonitorRecord> {
  const record: MonitorRecord = { id: uuid(), ...fields, active: true, createdAt: new Date(now).toISOString(), nextRunAt: now, lastRunAt: null, lastScanId: null, lastScore: null, lease: null };
  const held: { refusal: ScannerError | null } = { refusal: null };
  await store.root.transaction(() => {
    held.refusal = null; // a transaction callback may be replayed
    if (orgMonitors(store, fields.orgId).filter((m) => holdsSlot(m, now)).length >= limits.maxPerOrg) {
      held.refusal = new ScannerError('too_many_monitors');
      return;
    }
    const retryAfterS = spendInTransaction(store, fields.keyId, 'monitor-creations', { limit: limits.creationsPerHour, windowMs: HOUR_MS }, now);
    if (retryAfterS !== undefined) {
      held.refusal = new ScannerError('quota_monitor_creations', retryAfterS);
      return;
    }
    void store.monitors.put([fields.orgId, record.id], record);
  });
  if (held.refusal !== null) throw held.refusal;
  return record;
}

/** Deletes (deactivates) a monitor; it keeps its place in the limit for a while (slotHeldUntil). 404 when absent. */
export async function deactivateMonitor(store: ScannerStore, orgId: string, id: string, now: number): Promise<void> {
  let found = false;
  await store.root.transaction(() => {
    const m = store.monitors.get([orgId, id]);
    if (m === undefined) return;
    found = true;
    if (m.active) void store.monitors.put([orgId, id], { ...m, active: false, slotHeldUntil: slotHeldUntil(m, now) });
  });
  if (!found) throw new ScannerError('monitor_not_found');
}

/** A run claimed by this process: the monitor as it was when claimed, and the run record already on disk. */
export interface ClaimedRun {
  readonly monitor: MonitorRecord;
  readonly run: RunRecord;
}

function newRun(m: MonitorRecord, trigger: RunRecord['trigger'], owner: string, now: number): RunRecord {
  return { id: uuid(), monitorId: m.id, orgId: m.orgId, trigger, owner, startedAt: new Date(now).toISOString(), finishedAt: null, status: 'running', scanId: null, error: null };
}

/** The first slot after `now` on the monitor's cadence grid: missed slots (the service was down) are not caught up one by one. */
function nextSlot(m: MonitorRecord, now: number): number {
  const cadence = m.cadenceHours * HOUR_MS;
  const missed = Math.floor((now - m.nextRunAt) / cadence) + 1;
  return m.nextRunAt + Math.max(1, missed) * cadence;
}

function leaseFree(m: MonitorRecord, now: number): boolean {
  return m.lease === null || m.lease.expiresAt <= now;
}

/**
 * Claims every due monitor in one LMDB write transaction (LMDB has one writer at a time across processes): the
 * lease, the advanced next slot and the run record are written together before any run starts. A second process,
 * or this one after a restart, then finds the slot taken: a monitor runs once per cadence, never twice at once.
 */
export async function claimDue(store: ScannerStore, owner: string, now: number, leaseMs: number): Promise<ClaimedRun[]> {
  const claimed: ClaimedRun[] = [];
  await store.root.transaction(() => {
    claimed.length = 0; // a transaction callback may be replayed
    for (const { value: m } of store.monitors.getRange()) {
      if (!m.active || m.nextRunAt > now || !leaseFree(m, now)) continue;
      const run = newRun(m, 'schedule', owner, now);
      const monitor: MonitorRecord = { ...m, nextRunAt: nextSlot(m, now), lease: { owner, expiresAt: now + leaseMs } };
      void store.monitors.put([m.orgId, m.id], monitor);
      void store.runs.put([m.orgId, now, run.id], run);
      claimed.push({ monitor, run });
    }
  });
  return claimed;
}

/** Claims one monitor for a run now (POST …/run): 404 when absent, 409 when inactive or already running. */
export async function claimNow(store: ScannerStore, orgId: string, id: string, owner: string, now: number, leaseMs: number): Promise<ClaimedRun> {
  const held: { outcome: ClaimedRun | 'absent' | 'inactive' | 'busy' } = { outcome: 'absent' };
  await store.root.transaction(() => {
    const m = store.monitors.get([orgId, id]);
    if (m === undefined) held.outcome = 'absent';
    else if (!m.active) held.outcome = 'inactive';
    else if (!leaseFree(m, now)) held.outcome = 'busy';
    else {
      const run = newRun(m, 'manual', owner, now);
      const monitor: MonitorRecord = { ...m, lease: { owner, expiresAt: now + leaseMs } };
      void store.monitors.put([orgId, id], monitor);
      void store.runs.put([orgId, now, run.id], run);
      held.outcome = { monitor, run };
    }
  });
  const { outcome } = held;
  if (outcome === 'absent') throw new ScannerError('monitor_not_found');
  if (outcome === 'inactive') throw new ScannerError('monitor_inactive');
  if (outcome === 'busy') throw new ScannerError('monitor_busy');
  return outcome;
}

export interface RunResult {
  /** `skipped`: refused by the key's quota before anything was fetched. */
  readonly status: 'succeeded' | 'failed' | 'skipped';
  readonly scanId: string | null;
  readonly score: number | null;
  readonly error: string | null;
}

/**
 * Records how a run ended and releases the lease; returns the monitor's score and scan before this run (what a
 * score change is measured against), or null when it had none.
 */
export async function finishRun(store: ScannerStore, claimed: ClaimedRun, result: RunResult, now: number): Promise<{ score: number; scanId: string | null } | null> {
  const { monitor, run } = claimed;
  const held: { previous: { score: number; scanId: string | null } | null } = { previous: null };
  await store.root.transaction(() => {
    const current = store.monitors.get([monitor.orgId, monitor.id]);
    held.previous = current?.lastScore === null || current === undefined ? null : { score: current.lastScore, scanId: current.lastScanId };
    if (current !== undefined) {
      const ours = current.lease?.owner === run.owner;
      void store.monitors.put([monitor.orgId, monitor.id], {
        ...current,
        lease: ours ? null : current.lease,
        // A skipped run did not run: the monitor's last run is still the previous one.
        lastRunAt: result.status === 'skipped' ? current.lastRunAt : run.startedAt,
        ...(result.score === null ? {} : { lastScore: result.score, lastScanId: result.scanId }),
      });
    }
    void store.runs.put([run.orgId, Date.parse(run.startedAt), run.id], {
      ...run,
      finishedAt: new Date(now).toISOString(),
      status: result.status,
      scanId: result.scanId,
      error: result.error,
    });
  });
  return held.previous;
}

/** The organisation's newest runs first. */
export function recentRuns(store: ScannerStore, orgId: string, limit: number): RunRecord[] {
  const out: RunRecord[] = [];
  for (const { value } of store.runs.getRange({ start: [orgId, Number.MAX_SAFE_INTEGER], end: [orgId, -1], reverse: true, limit })) out.push(value);
  return out;
}
