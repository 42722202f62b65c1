import type { Dispatcher } from 'undici';
import type { TenantRepository } from '../../storage/repositories.js';
import { timestampsCheckpoints } from '../../identity/tenants/plans.js';
import type { LedgerOptions } from '../../ledger/ledger.js';
import type { WriterSettings } from './writer-protocol.js';

/** LEDGER_COMPRESSION as plain data (all, none, or these event types) as the ledger takes it: a predicate. */
export function compressionFor(compression: WriterSettings['compression']): boolean | ((eventType: string) => boolean) {
  if (typeof compression === 'boolean') return compression;
  const types = new Set(compression);
  return (eventType) => types.has(eventType);
}

/**
 * The gateway's Ledger options from its writer settings: one definition for the ledger its writer thread runs and
 * the one a single-core gateway runs inline. `dispatcher` is the egress proxy's (time-stamp requests leave through it).
 */
export function writerLedgerOptions(
  settings: WriterSettings,
  tenants: TenantRepository,
  parts: { dispatcher: Dispatcher | undefined; onError: (err: unknown, context: string) => void; onAnchorProgress?: () => void },
): LedgerOptions {
  const anchoring = settings.anchoring;
  return {
    keyDir: settings.dataDir,
    checkpointEvery: settings.checkpointEvery,
    checkpointIntervalMs: settings.checkpointIntervalMs,
    groupCommitMs: settings.groupCommitMs,
    compress: compressionFor(settings.compression),
    ...(settings.maxEntryBytes !== undefined ? { maxEntryBytes: settings.maxEntryBytes } : {}),
    // Enterprise tenants' checkpoints are time-stamped by the TSA; the plan is read when each checkpoint is signed.
    anchoring: anchoring
      ? {
          tenant: (id) => timestampsCheckpoints(tenants.get(id)?.plan),
          tsaUrl: anchoring.tsaUrl,
          baseDelayMs: anchoring.baseDelayMs,
          maxDelayMs: anchoring.maxDelayMs,
          dispatcher: parts.dispatcher,
          ...(parts.onAnchorProgress ? { onProgress: parts.onAnchorProgress } : {}),
        }
      : null,
    tsaCertPem: settings.tsaCertPem,
    onError: parts.onError,
  };
}
