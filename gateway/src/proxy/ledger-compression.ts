import { ENDPOINTS } from './endpoints.js';
import { compressionFor } from '../governance/writer/writer-ledger-options.js';

/** The event types of proxied calls' ledger entries. */
const PROXY_EVENT_TYPES: ReadonlySet<string> = new Set(Object.values(ENDPOINTS).map((e) => e.eventType));

/**
 * LEDGER_COMPRESSION as the ledger takes it. 'proxy' (the default) compresses proxied calls' records only: ~12 µs of
 * CPU against a call's ~300, for ~55 % less disk per call. Decisions and ingested events, whose throughput is
 * bound by CPU per entry, are compressed only with 'all' (docs/ledger.md, "Storage").
 */
export function ledgerCompression(setting: string): boolean | ((eventType: string) => boolean) {
  return compressionFor(compressedEventTypes(setting));
}

/** LEDGER_COMPRESSION as plain data (all, none, or the event types compressed): how the ledger's writer thread takes it. */
export function compressedEventTypes(setting: string): boolean | string[] {
  if (setting === 'all' || setting === 'true') return true;
  if (setting === 'proxy') return [...PROXY_EVENT_TYPES];
  return false;
}
