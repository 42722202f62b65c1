import { HANDLED, type HttpServer } from '../../http/server.js';
import type { SidecarTokenRecord, SidecarTokenRepository } from '../../storage/repositories.js';
import { assertSidecarCovers, readSidecarRequest } from '../sidecar-auth.js';
import { GatewayError } from '../../errors.js';
import type { PgLedgerArchive } from '../postgres/pg-ledger-archive.js';
import { parseShippedBody, readShippedBatch } from './read-shipped-batch.js';
import { checkBatchContent, type CheckedBatch } from './verify-batch.js';

export interface LedgerIngestOptions {
  archive: Pick<PgLedgerArchive, 'ingestChecked'>;
  sidecarTokens: SidecarTokenRepository;
  /** Largest batch body, bytes (FLEET_LEDGER_BODY_LIMIT; 413 past it). */
  maxBody?: number;
  /** Most entries in one batch (FLEET_LEDGER_BATCH_MAX; 413 past it). */
  maxEntries?: number;
}

/**
 * POST /v1/fleet/ledger at the control plane (docs/fleet.md, "Shipping the ledger"): a sidecar's ShippedBatch,
 * verified and stored in one transaction, answered with the chain's acknowledged seq. The sidecar token is checked
 * from the head, before a byte of the (large) body is read. The body is parsed and its content checked in one turn,
 * so that only the checked entries, not the parsed ones, wait for the database (verify-batch.ts).
 */
export function registerLedgerIngestRoute(server: HttpServer, options: LedgerIngestOptions): void {
  const maxBody = options.maxBody ?? 16 * 1024 * 1024;
  const maxEntries = options.maxEntries ?? 10_000;
  server.route('post', '/v1/fleet/ledger', { scope: null, body: 'none' }, async (ctx) => {
    const got = await readSidecarRequest(server, ctx, options.sidecarTokens, maxBody);
    if (got === HANDLED) return HANDLED;
    const batch = checkedBatch(got.raw, got.sidecar, maxEntries);
    return { status: 200, body: await options.archive.ingestChecked(batch) };
  });
}

/** Parse, shape, the sidecar's coverage of the tenant, then content: synchronous, so nothing parsed outlives it. */
function checkedBatch(raw: Buffer, sidecar: SidecarTokenRecord, maxEntries: number): CheckedBatch {
  const batch = readShippedBatch(parseShippedBody(raw), maxEntries);
  assertSidecarCovers(sidecar, batch.tenant_id);
  const content = checkBatchContent(batch);
  if (!content.ok) throw new GatewayError(content.code, content.reason);
  return content.batch;
}
