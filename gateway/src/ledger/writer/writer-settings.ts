import type { GatewayConfig } from '../../config.js';
import type { WriterSettings } from './writer-protocol.js';
import { compressedEventTypes } from '../../proxy/ledger-compression.js';

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
