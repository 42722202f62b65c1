import { readFileSync } from 'node:fs';
import type { Egress, Logger } from '@aduana/shared';
import type { GatewayConfig } from './config.js';
import type { TenantRepository } from './storage/repositories.js';
import type { GatewayStore } from './storage/gateway-store.js';
import { compressedEventTypes } from './proxy/ledger-compression.js';
import { localDecisionWrites, type DecisionWrites } from './governance/decisions/decision-store.js';
import { usableCores } from './platform/usable-cores.js';
import { Ledger } from './ledger/ledger.js';
import { ThreadedLedger } from './governance/writer/threaded-ledger.js';
import type { WriterSettings } from './governance/writer/writer-protocol.js';
import { writerLedgerOptions } from './governance/writer/writer-ledger-options.js';

export interface GatewayLedger {
  ledger: Ledger | ThreadedLedger;
  /** Where the decision index is written: by the same thread as the ledger. */
  decisionWrites: DecisionWrites;
  /** Resolves once the ledger can write (the writer thread opened); rejects with why it cannot. */
  ready: Promise<void>;
  /** Whether the writes are made on a thread of their own. */
  onThread: boolean;
}

/**
 * The gateway's ledger, its writes made where LEDGER_WRITER says (docs/architecture.md, "Threads"): on a writer thread
 * of their own (`thread`; `auto` where the process may use two cores or more), or on the request thread (`inline`;
 * `auto` with one core, where a second thread would only add its hand-over and its memory).
 */
export function openGatewayLedger(config: GatewayConfig, store: GatewayStore, tenants: TenantRepository, egress: Egress, logger: Logger): GatewayLedger {
  const tsaCertPem = config.anchorTsaCert ? readFileSync(config.anchorTsaCert, 'utf8') : null;
  const onError = (err: unknown, context: string) => logger.error({ err, context }, 'ledger background error');
  const onThread = config.ledgerWriter === 'thread' || (config.ledgerWriter === 'auto' && usableCores() >= 2);
  const settings = ledgerWriterSettings(config, tsaCertPem);
  if (onThread) {
    // Started now, waited for before listening: the thread opens while the rest is built.
    const ledger = new ThreadedLedger(store.root, { keyDir: config.dataDir, tsaCertPem, onError }, settings);
    return { ledger, decisionWrites: ledger.decisionWrites, ready: ledger.ready, onThread };
  }
  const ledger = Ledger.open(store.root, writerLedgerOptions(settings, tenants, { dispatcher: egress.dispatcher, onError }));
  return { ledger, decisionWrites: localDecisionWrites(store), ready: Promise.resolve(), onThread };
}

/** The writer thread's settings from the gateway's configuration (and the TSA certificate it names, read): plain data, as a thread is started with. */
export function ledgerWriterSettings(config: GatewayConfig, tsaCertPem: string | null): WriterSettings {
  return {
    dataDir: config.dataDir,
    checkpointEvery: config.checkpointEvery,
    checkpointIntervalMs: config.checkpointIntervalS * 1000,
    groupCommitMs: config.ledgerGroupCommitMs,
    compression: compressedEventTypes(config.ledgerCompression),
    anchoring: config.anchorTsaUrl
      ? {
          tsaUrl: config.anchorTsaUrl,
          baseDelayMs: config.anchorRetryBaseMs,
          maxDelayMs: config.anchorRetryMaxMs,
          egress: { httpsProxy: config.httpsProxy, httpProxy: config.httpProxy, noProxy: config.noProxy },
        }
      : null,
    tsaCertPem,
  };
}
