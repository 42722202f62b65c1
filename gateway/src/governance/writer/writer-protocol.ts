import type { DecisionRecord } from '../decisions/decision-store.js';
import type { AnchorStats } from '../../ledger/merkle/anchor-queue.js';
import type { PreparedKeys } from '../../ledger/log/entry-input.js';
import type { CommitWindow } from '../../ledger/ledger.js';
import type { LedgerErrorCode } from '../../ledger/errors.js';
import type { PruneLimits } from '../../ledger/lifecycle/prune.js';

/**
 * The messages between request threads and the ledger's writer thread (docs/architecture.md, "Threads"). A request
 * thread sends what it queued in one event-loop turn as one message; the writer answers what settled in one of its
 * turns as one message. Every write is numbered by its sender, and answered by that number.
 */

/** An input as it crosses: validated and canonicalised by the request thread, its text still a string (cloned cheaply). */
export interface WireInput extends PreparedKeys {
  text: string;
}

/** What the writer thread may be asked to do besides appending (each answered once, by id). */
export interface WriterCalls {
  checkpointNow: [tenantId: string];
  checkpointAt: [tenantId: string, size: number];
  markExported: [tenantId: string, size: number];
  prune: [tenantId: string, limits: PruneLimits];
  resolveDecision: [tenantId: string, decisionId: string, resolution: NonNullable<DecisionRecord['resolution']>];
  close: [];
}
export type WriterCallName = keyof WriterCalls;

export type ToWriter =
  | { readonly op: 'append'; readonly id: number; readonly tenant: string; readonly window: CommitWindow; readonly inputs: WireInput[] }
  | { readonly op: 'decision'; readonly id: number; readonly record: DecisionRecord }
  /** Puts the decision records the writer holds to order them (a barrier's: another thread is about to read), unanswered. */
  | { readonly op: 'put-held' }
  | { [K in WriterCallName]: { readonly op: 'call'; readonly id: number; readonly method: K; readonly args: WriterCalls[K] } }[WriterCallName];

/** A failure as it crosses back: enough to rebuild the LedgerError (or a plain Error) the caller would have seen in-thread. */
export interface WireError {
  readonly code: LedgerErrorCode | null;
  readonly message: string;
  readonly index: number | null;
}

/** A write's answer: its value (an append's ChainLink[], a call's result), or its failure. */
export type Reply = { readonly id: number; readonly value: unknown } | { readonly id: number; readonly error: WireError };

export interface FromWriter {
  readonly replies: Reply[];
  /** Tenants whose chains became durable since the last message (the fleet shipper's wake-up). */
  readonly durable: string[];
  /** Background failures (checkpoint writes, time-stamping), for the request thread's logger. */
  readonly errors: { readonly context: string; readonly message: string; readonly stack?: string }[];
  /** The time-stamping sender's state, when it changed; null when this process sends none. */
  readonly anchor?: AnchorStats | null;
}

/** The first message: the writer opened the store and its ledger (a failure to is the thread's error event). */
export interface WriterStarted {
  readonly ready: true;
  readonly anchor: AnchorStats | null;
}

/** What the writer thread is started with (workerData): plain data only. */
export interface WriterSettings {
  readonly dataDir: string;
  readonly checkpointEvery: number;
  readonly checkpointIntervalMs: number;
  readonly groupCommitMs: number;
  /** LEDGER_COMPRESSION: every record compressed (true), none (false), or those of these event types. */
  readonly compression: boolean | readonly string[];
  readonly maxEntryBytes?: number;
  /** ANCHOR_TSA_URL and its retry settings, with the egress proxy settings its requests leave through; null: no time-stamping. */
  readonly anchoring: {
    readonly tsaUrl: string;
    readonly baseDelayMs: number;
    readonly maxDelayMs: number;
    readonly egress: { readonly httpsProxy: string; readonly httpProxy: string; readonly noProxy: string };
  } | null;
  readonly tsaCertPem: string | null;
  /** How long decision records are held to be put in key order, ms (decision-write-order.ts; absent: its default). */
  readonly decisionHoldMs?: number;
}

