/**
 * bench:fleet-ingest's control plane, in a process of its own so that its CPU is measured apart from the load
 * generator's: POST /v1/fleet/ledger on a real uWebSockets.js server (sidecar-token auth, JSON parse, verify, one
 * transaction per batch) over a PgLedgerArchive. Driven by its parent over IPC: it answers `{ port }` once listening,
 * `{ cpu }` (its process.cpuUsage) on 'cpu', and exits on 'stop'.
 */
import { createLogger, hashToken } from '@aduana/shared';
import { BodyBudget, HttpServer, PgLedgerArchive, registerLedgerIngestRoute, sidecarGuard } from '@aduana/gateway/fleet/shipping';

const url = process.env.BENCH_DATABASE_URL!;
const token = process.env.BENCH_SIDECAR_TOKEN!;
const poolSize = Number(process.env.BENCH_POOL ?? 8);
const record = { id: 'sct-1', name: 'bench', tenants: null, created_at: new Date().toISOString(), revoked_at: null, last4: token.slice(-4) };
const sidecarTokens = {
  findByHash: (h: string) => (h === hashToken(token) ? record : undefined),
  list: () => [record],
  create: () => Promise.reject(new Error('not in the benchmark')),
  revoke: () => Promise.resolve(false),
  rotate: () => Promise.resolve({ kind: 'not_found' as const }),
};
const archive = PgLedgerArchive.open(url, poolSize);
const server = new HttpServer({
  logger: createLogger('bench', { level: 'silent' }),
  access: { authenticate: () => { throw new Error('no PATs in the benchmark'); }, admit: () => {} },
  guards: { sidecar: sidecarGuard(sidecarTokens) },
  budget: new BodyBudget(512 * 1024 * 1024, 512 * 1024 * 1024),
  defaultMaxBody: 1024 * 1024,
  serviceName: 'control',
});
registerLedgerIngestRoute(server, { archive, maxBody: 64 * 1024 * 1024, maxEntries: 100_000 });
server.finish();
const port = await server.listen('127.0.0.1', 0);
process.on('message', (msg) => {
  if (msg === 'cpu') process.send!({ cpu: process.cpuUsage() });
  if (msg === 'stop') {
    void server.close(1000).then(() => archive.close()).then(() => process.exit(0));
  }
});
process.send!({ port });
