import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import { assertOwnTenant, cursorParam, intParam, limitParam, queryTenant } from '../http/list-params.js';
import { fromLedgerError } from '../ledger/events/ledger-errors.js';
import type { GatewayDeps } from '../gateway-deps.js';
import type { AnchoredCheckpoint, Checkpoint, EventsLedger } from '../ledger/index.js';

/** A checkpoint with its RFC 3161 time-stamp (or `pending`), when its tenant's checkpoints are time-stamped. */
function withAnchor(ledger: EventsLedger, cp: Checkpoint): AnchoredCheckpoint {
  const anchor = ledger.anchorOf(cp.tenant_id, cp.tree_size);
  return anchor ? { ...cp, anchor } : cp;
}

/** Wraps a handler so the ledger's own errors come out through the registry. */
function ledgerCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw fromLedgerError(err);
  }
}

/**
 * The events ledger (docs/decisions.md, "Events ledger"): ingest one or a batch (durable before the answer), list with filters and
 * cursor, verify the chain, and Certificate-Transparency-style proofs against signed checkpoints.
 */
/** `POST /v1/events` and its batch: agents' calls, mounted with the others (mount-agents-calls.ts). */
export function registerEventIngestRoutes(server: HttpServer, deps: Pick<GatewayDeps, 'ingestor' | 'ingestValidator' | 'config'>): void {
  const { ingestor, ingestValidator, config } = deps;

  server.route('post', '/v1/events', { auth: 'pat', scope: 'runtime:write', body: 'json', agentsCall: 'any-thread' }, async (ctx) => {
    const ev = ingestValidator.event(ctx.body);
    assertOwnTenant(ctx, ev.metadata?.tenant_id);
    const [done] = await ingestor.ingest(ctx.auth, [ev], ctx.trace.traceId, ctx.startedAt).catch((e: unknown) => {
      throw fromLedgerError(e);
    });
    return { status: 200, body: { envelope: done!.envelope, trace_id: ctx.trace.traceId } };
  });

  server.route('post', '/v1/events/ingest/batch', { auth: 'pat', scope: 'runtime:write', body: 'json', agentsCall: 'any-thread' }, async (ctx) => {
    const items = ingestValidator.batch(ctx.body);
    if (items.length > config.batchMaxEvents) {
      throw new GatewayError('payload_too_large', `a batch holds at most ${config.batchMaxEvents} events; this one has ${items.length}`);
    }
    if (items.length === 0) throw new GatewayError('invalid_request', 'events: at least one event');
    const events = items.map((item, i) => {
      const ev = ingestValidator.event(item, `events[${i}]`);
      if (ev.metadata?.tenant_id !== undefined && ev.metadata.tenant_id !== ctx.auth.tenantId) throw new GatewayError('tenant_mismatch', `events[${i}].metadata.tenant_id: not the caller's tenant`);
      return ev;
    });
    const done = await ingestor.ingest(ctx.auth, events, ctx.trace.traceId, ctx.startedAt).catch((e: unknown) => {
      throw fromLedgerError(e);
    });
    return {
      status: 200,
      body: {
        accepted: done.length,
        first_seq: done[0]!.entry.seq,
        last_seq: done[done.length - 1]!.entry.seq,
        envelopes: done.map((d) => d.envelope),
        trace_id: ctx.trace.traceId,
      },
    };
  });
}

/** The reads of the ledger: entries, verification, proofs and checkpoints (the main thread's). */
export function registerEventReadRoutes(server: HttpServer, deps: GatewayDeps): void {
  const { ledger, config } = deps;

  // The reads of entries first wait for the tenant's appends still with the writer: what was answered is what is read.
  server.route('get', '/v1/events', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    queryTenant(ctx);
    const limit = limitParam(ctx, config.listDefaultLimit, config.listMaxLimit);
    const order = ctx.query.get('order');
    if (order !== null && order !== 'asc' && order !== 'desc') throw new GatewayError('invalid_request', 'order: asc or desc');
    await ledger.caughtUp(ctx.auth.tenantId);
    const page = ledgerCall(() =>
      ledger.list(ctx.auth.tenantId, {
        limit,
        cursor: cursorParam(ctx),
        agentId: ctx.query.get('agentId') ?? ctx.query.get('agent_id'),
        eventType: ctx.query.get('event_type') ?? ctx.query.get('eventType'),
        order: order ?? 'asc',
      }),
    );
    return { status: 200, body: page };
  });

  server.route('get', '/v1/events/verify', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    queryTenant(ctx);
    await ledger.caughtUp(ctx.auth.tenantId);
    const report = await ledger.verify(ctx.auth.tenantId).catch((e: unknown) => {
      throw fromLedgerError(e);
    });
    return { status: 200, body: { tenant_id: ctx.auth.tenantId, ...report, head: ledger.head(ctx.auth.tenantId) } };
  });

  server.route('get', '/v1/events/proofs/inclusion', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    const seq = intParam(ctx, 'seq', true) as number;
    const treeSize = intParam(ctx, 'tree_size', false);
    await ledger.caughtUp(ctx.auth.tenantId);
    return { status: 200, body: ledgerCall(() => ledger.inclusionProof(ctx.auth.tenantId, seq, treeSize)) };
  });

  server.route('get', '/v1/events/proofs/consistency', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    const from = intParam(ctx, 'from', true) as number;
    const to = intParam(ctx, 'to', false);
    await ledger.caughtUp(ctx.auth.tenantId);
    return { status: 200, body: ledgerCall(() => ledger.consistencyProof(ctx.auth.tenantId, from, to)) };
  });

  server.route('get', '/v1/events/checkpoints', { auth: 'pat', scope: 'runtime:read', body: 'none' }, (ctx) => {
    const limit = limitParam(ctx, config.listDefaultLimit, config.listMaxLimit);
    const fromSize = intParam(ctx, 'from_size', false);
    const data = ledgerCall(() => ledger.checkpoints(ctx.auth.tenantId, fromSize === undefined ? { limit } : { fromSize, limit })).map((cp) => withAnchor(ledger, cp));
    return { status: 200, body: { data, public_key: ledger.publicKey } };
  });

  server.route('get', '/v1/events/checkpoints/latest', { auth: 'pat', scope: 'runtime:read', body: 'none' }, (ctx) => {
    const cp = ledger.latestCheckpoint(ctx.auth.tenantId);
    if (!cp) throw new GatewayError('not_found', 'no checkpoint yet');
    return { status: 200, body: { checkpoint: withAnchor(ledger, cp), public_key: ledger.publicKey } };
  });

  server.route('get', '/v1/events/:seq', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    const raw = ctx.params[0] as string;
    if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new GatewayError('not_found', 'event not found');
    await ledger.caughtUp(ctx.auth.tenantId);
    const entry = ledgerCall(() => ledger.get(ctx.auth.tenantId, Number(raw)));
    if (!entry) throw new GatewayError('not_found', 'event not found');
    return { status: 200, body: entry };
  });
}
