import type { Database } from 'lmdb';
import { newId, sha256Hex } from '@aduana/shared';
import type { ErrorEvent, ErrorIssue } from './telemetry-records.js';

export interface ErrorInput {
  level: string;
  message: string;
  agentId: string;
  ruleId: string;
  traceId: string;
  atMs: number;
}

// Variable parts of a message (ids, numbers, hex, quoted values) do not split an issue: compiled once.
const VARIABLE = /\b[0-9a-f]{8,}\b|\b\d+(?:\.\d+)?\b|"[^"]*"|'[^']*'/gi;

/**
 * Sentry-style grouping (docs/telemetry.md, "Errors"): an event's fingerprint is its level, its rule (when a policy
 * blocked) and its message with the variable parts replaced; events with the same fingerprint are one issue with a
 * count, firstSeen and lastSeen.
 */
export function fingerprint(level: string, ruleId: string, message: string): string {
  return sha256Hex(`${level}\n${ruleId}\n${message.replace(VARIABLE, '<*>')}`).slice(0, 32);
}

/** The issue an event belongs to: its fingerprint's id. */
export function issueIdOf(level: string, ruleId: string, message: string): string {
  return `iss_${fingerprint(level, ruleId, message)}`;
}

/** An issue's title: its first event's message, cut. */
export function issueTitle(message: string): string {
  return message.slice(0, 200);
}

/**
 * Error events under [tenant, event id] (ULIDs: newest last) and issues under [tenant, issue id]. Writes are buffered
 * and committed together within a second (an error storm is one transaction per second, not one per event); reads
 * flush first, so a client reads what it just sent.
 */
export class ErrorStore {
  #pending: { tenantId: string; input: ErrorInput; event: ErrorEvent; title: string }[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** The writes started so far: a flush with nothing new still waits for them, so a read after it sees them. */
  #written: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly events: Database,
    private readonly issues: Database,
  ) {}

  /** Queues an event; returns it (its issue id is its fingerprint's). */
  record(tenantId: string, input: ErrorInput): ErrorEvent {
    const issueId = issueIdOf(input.level, input.ruleId, input.message);
    const event: ErrorEvent = {
      id: newId('err'),
      issueId,
      timestamp: new Date(input.atMs).toISOString(),
      level: input.level,
      message: input.message,
      context: { agentId: input.agentId, ruleId: input.ruleId, traceId: input.traceId },
    };
    this.#pending.push({ tenantId, input, event, title: issueTitle(input.message) });
    if (this.#timer === null) this.#timer = setTimeout(() => void this.flush(), 1000).unref();
    return event;
  }

  flush(): Promise<unknown> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const pending = this.#pending;
    this.#pending = [];
    if (pending.length === 0) return this.#written;
    const written = this.events.transaction(() => {
      for (const { tenantId, input, event, title } of pending) {
        this.events.put([tenantId, event.id], event);
        const key = [tenantId, event.issueId];
        const cur = this.issues.get(key) as ErrorIssue | undefined;
        const issue: ErrorIssue = cur
          ? { ...cur, count: cur.count + 1, lastSeen: event.timestamp, agentId: input.agentId }
          : { id: event.issueId, title, level: input.level, count: 1, firstSeen: event.timestamp, lastSeen: event.timestamp, agentId: input.agentId };
        this.issues.put(key, issue);
      }
    });
    this.#written = Promise.all([this.#written, written]);
    return this.#written;
  }

  /** The tenant's issues, most recently seen first. */
  async listIssues(tenantId: string, limit: number): Promise<{ data: ErrorIssue[]; total: number }> {
    await this.flush();
    const all: ErrorIssue[] = [];
    for (const { value } of this.issues.getRange({ start: [tenantId], end: [tenantId, '\uffff'] })) all.push(value as ErrorIssue);
    all.sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : 0));
    return { data: all.slice(0, limit), total: all.length };
  }

  /** The tenant's most recent events, newest first, optionally of one issue. */
  async listEvents(tenantId: string, limit: number, issueId?: string): Promise<{ data: ErrorEvent[] }> {
    await this.flush();
    const data: ErrorEvent[] = [];
    for (const { value } of this.events.getRange({ start: [tenantId, '\uffff'], end: [tenantId], reverse: true })) {
      const e = value as ErrorEvent;
      if (issueId !== undefined && e.issueId !== issueId) continue;
      data.push(e);
      if (data.length >= limit) break;
    }
    return { data };
  }

  /** Deletes events older than `beforeMs`, and issues last seen before it. */
  async prune(beforeMs: number): Promise<number> {
    await this.flush();
    const cutoff = new Date(beforeMs).toISOString();
    const oldEvents: unknown[] = [];
    for (const { key, value } of this.events.getRange({})) if ((value as ErrorEvent).timestamp < cutoff) oldEvents.push(key);
    const oldIssues: unknown[] = [];
    for (const { key, value } of this.issues.getRange({})) if ((value as ErrorIssue).lastSeen < cutoff) oldIssues.push(key);
    if (oldEvents.length + oldIssues.length === 0) return 0;
    await this.events.transaction(() => {
      for (const k of oldEvents) this.events.remove(k as string[]);
      for (const k of oldIssues) this.issues.remove(k as string[]);
    });
    return oldEvents.length + oldIssues.length;
  }
}
