import type { HttpServer } from '../../http/server.js';
import { assertSidecarCovers, sidecarOf } from '../sidecar-auth.js';
import { chainOwnerOf } from '../sidecar-token-store.js';
import type { PgLedgerArchive } from '../postgres/pg-ledger-archive.js';
import { parseShippedBody, readShippedBatch } from './read-shipped-batch.js';

export interface LedgerIngestOptions {
  archive: Pick<PgLedgerArchive, 'ingest'>;
  /** Largest batch body, bytes (FLEET_LEDGER_BODY_LIMIT; 413 past it). */
  maxBody?: number;
  /** Most entries in one batch (FLEET_LEDGER_BATCH_MAX; 413 past it). */
  maxEntries?: number;
}

/**
 * POST /v1/fleet/ledger at the control plane (docs/fleet.md, "Shipping the ledger"): a sidecar's ShippedBatch,
 * verified and stored in one transaction, answered with the chain's acknowledged seq. The sidecar token is checked
 * from the head by the `sidecar` guard (sidecar-auth.ts), before a byte of the (large) body is read. The body is
 * parsed and its content checked in one turn (`ingest` checks it before its first wait), so only the checked entries,
 * not the parsed ones, wait for the database.
 * The chain is the token's (its line of rotations'): another sidecar token's batch for it is refused (403).
 */
export function registerLedgerIngestRoute(server: HttpServer, options: LedgerIngestOptions): void {
  const maxBody = options.maxBody ?? 16 * 1024 * 1024;
  const maxEntries = options.maxEntries ?? 10_000;
  server.route('post', '/v1/fleet/ledger', { auth: 'sidecar', body: 'raw', maxBody }, async (ctx) => {
    const sidecar = sidecarOf(ctx);
    const batch = readShippedBatch(parseShippedBody(ctx.rawBody ?? Buffer.alloc(0)), maxEntries);
    assertSidecarCovers(sidecar, batch.tenant_id);
    return { status: 200, body: await options.archive.ingest(batch, chainOwnerOf(sidecar)) };
  });
}
