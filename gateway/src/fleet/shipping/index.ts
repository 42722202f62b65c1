// Ledger shipping's public surface (fleet mode): the sidecar's shipper and the control plane's verifying archive,
// its routes and schema, for `aduana control`, the sidecar wiring and bench:fleet-ingest.
export { LedgerShipper, ShipError, type LedgerShipperOptions, type ShipperStatus, type ChainLag } from './ledger-shipper.js';
export { ShipCursorStore, type ShipCursor } from './ship-cursor-store.js';
export { registerLedgerIngestRoute, type LedgerIngestOptions } from './ledger-ingest-route.js';
export { sidecarGuard } from '../sidecar-auth.js';
export { registerArchiveEventRoutes, type ArchiveEventRouteOptions } from './archive-event-routes.js';
export { checkBatchContent, verifyBatch, type BatchVerdict, type ChainHead, type CheckedBatch } from './verify-batch.js';
export { readShippedBatch } from './read-shipped-batch.js';
export { SHIPPING_FORMAT, type ShippedAck, type ShippedBatch } from './shipping-format.js';
export { PgLedgerArchive } from '../postgres/pg-ledger-archive.js';
export { MIGRATIONS, type Migration } from '../postgres/migrations/index.js';
export { HttpServer } from '../../http/server.js';
export { BodyBudget } from '../../http/body-budget.js';
