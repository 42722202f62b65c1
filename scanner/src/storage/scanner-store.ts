import { openStore, type Database, type RootDatabase } from '@aduana/shared';
import type { Assessment } from '../assessment/assessment.js';

/** An organisation: every KEY read and write is limited to the key's one. */
export interface OrgRecord {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
}

/** An API key as stored: its SHA-256 only, never the key. */
export interface KeyRecord {
  readonly id: string;
  readonly orgId: string;
  readonly hash: string;
  /** The key's first characters, so an operator can tell keys apart in `scanner-key list`. */
  readonly hint: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

/** One line of an organisation's history (docs/scanner.md, "History"). */
export interface HistoryItem {
  readonly scanId: string;
  readonly url: string;
  readonly timestamp: string;
  readonly globalScore: number;
  readonly grade: string;
  readonly profile: string;
}

/**
 * A recorded assessment: its JSON text exactly as it was answered, so recording copies one string instead of encoding
 * the whole Assessment a second time, and reading it back answers those bytes as they are.
 */
export interface ScanRecord {
  readonly orgId: string;
  readonly json: string;
}

/** A record written by earlier versions, which kept the decoded Assessment; still read (answered as its JSON). */
export interface LegacyScanRecord {
  readonly orgId: string;
  readonly assessment: Assessment;
}

export interface MonitorRecord {
  readonly id: string;
  readonly orgId: string;
  /** The key that created it: scheduled runs are attributed to it. */
  readonly keyId: string;
  readonly url: string;
  readonly profile: string;
  readonly cadenceHours: number;
  readonly active: boolean;
  readonly createdAt: string;
  /** Epoch ms of the next scheduled run. */
  readonly nextRunAt: number;
  readonly lastRunAt: string | null;
  readonly lastScanId: string | null;
  readonly lastScore: number | null;
  /** Held while a run is in progress (docs/scanner.md, "Monitors"): no second run starts until it ends or expires. */
  readonly lease: { readonly owner: string; readonly expiresAt: number } | null;
  /**
   * Set when the monitor is deleted: until this epoch ms it still counts in its organisation's monitor limit, so
   * deleting and creating again cannot run more often than the monitor would have. Absent on older records.
   */
  readonly slotHeldUntil?: number;
}

/** One execution of a monitor, recorded before it starts. */
export interface RunRecord {
  readonly id: string;
  readonly monitorId: string;
  readonly orgId: string;
  readonly trigger: 'schedule' | 'manual';
  readonly owner: string;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  /** `skipped`: not run, because the key's assessment quota was spent (error `quota_exceeded`). */
  readonly status: 'running' | 'succeeded' | 'failed' | 'skipped';
  readonly scanId: string | null;
  readonly error: string | null;
}

export interface WebhookRecord {
  readonly id: string;
  readonly orgId: string;
  readonly url: string;
  readonly minScoreDelta: number;
  readonly active: boolean;
  readonly createdAt: string;
  /** The signing secret, AES-256-GCM sealed with SCANNER_SECRET_KEY. */
  readonly sealedSecret: string;
}

export interface DeliveryRecord {
  readonly id: string;
  readonly webhookId: string;
  readonly event: string;
  /** The delivery (one event) this attempt belongs to; attempts of one delivery share it. */
  readonly deliveryId: string;
  readonly attempt: number;
  readonly timestamp: string;
  readonly status: number | null;
  readonly error: string | null;
}

/**
 * The scanner's LMDB environment under DATA_DIR/scanner and its named databases. lmdb-js orders array keys
 * element by element, which the range reads below rely on (an organisation's newest scans first).
 */
export interface ScannerStore {
  readonly root: RootDatabase;
  readonly orgs: Database<OrgRecord, string>;
  readonly orgNames: Database<string, string>;
  readonly keys: Database<KeyRecord, string>;
  readonly keyHashes: Database<string, string>;
  readonly scans: Database<ScanRecord | LegacyScanRecord, string>;
  /** [orgId, epoch ms, scanId] → history item. */
  readonly history: Database<HistoryItem, [string, number, string]>;
  /** [orgId, counter name] → count (scans, monitor runs). */
  readonly counters: Database<number, [string, string]>;
  /** [keyId, bucket, window index] → units used in that window. */
  readonly quota: Database<number, [string, string, number]>;
  /** [orgId, monitorId] → monitor: a lookup with another organisation's id simply finds nothing. */
  readonly monitors: Database<MonitorRecord, [string, string]>;
  /** [orgId, epoch ms, runId] → run. */
  readonly runs: Database<RunRecord, [string, number, string]>;
  /** [orgId, webhookId] → webhook. */
  readonly webhooks: Database<WebhookRecord, [string, string]>;
  /** [webhookId, epoch ms, attemptId] → attempt. */
  readonly deliveries: Database<DeliveryRecord, [string, number, string]>;
  close(): Promise<void>;
}

export function openScannerStore(dataDir: string): ScannerStore {
  const root = openStore(dataDir, 'scanner');
  return {
    root,
    orgs: root.openDB<OrgRecord, string>({ name: 'orgs' }),
    orgNames: root.openDB<string, string>({ name: 'org-names' }),
    keys: root.openDB<KeyRecord, string>({ name: 'keys' }),
    keyHashes: root.openDB<string, string>({ name: 'key-hashes' }),
    scans: root.openDB<ScanRecord | LegacyScanRecord, string>({ name: 'scans' }),
    history: root.openDB<HistoryItem, [string, number, string]>({ name: 'history' }),
    counters: root.openDB<number, [string, string]>({ name: 'counters' }),
    quota: root.openDB<number, [string, string, number]>({ name: 'quota' }),
    monitors: root.openDB<MonitorRecord, [string, string]>({ name: 'monitors' }),
    runs: root.openDB<RunRecord, [string, number, string]>({ name: 'runs' }),
    webhooks: root.openDB<WebhookRecord, [string, string]>({ name: 'webhooks' }),
    deliveries: root.openDB<DeliveryRecord, [string, number, string]>({ name: 'deliveries' }),
    close: () => root.close(),
  };
}
