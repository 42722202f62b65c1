import { GatewayError } from '../../errors.js';
import type { HttpServer } from '../../http/server.js';
import type { RequestContext } from '../../http/request-context.js';
import { cursorParam, intParam, limitParam, queryTenant } from '../../http/list-params.js';
import { isValidName } from '../../ledger/log/entry-input.js';
import type { PgLedgerArchive } from '../postgres/pg-ledger-archive.js';

export interface ArchiveEventRouteOptions {
  defaultLimit?: number;
  maxLimit?: number;
}

function nameParam(ctx: RequestContext, names: readonly string[]): string | null {
  for (const name of names) {
    const raw = ctx.query.get(name);
    if (raw === null || raw === '') continue;
    if (!isValidName(raw)) throw new GatewayError('invalid_request', `${name}: not a valid name`);
    return raw;
  }
  return null;
}

function chainParam(ctx: RequestContext, required: boolean): string | null {
  const raw = ctx.query.get('chain_id');
  if (raw === null || raw === '') {
    if (required) throw new GatewayError('invalid_request', 'chain_id: required (GET /v1/fleet/chains lists them)');
    return null;
  }
  if (raw.length > 600) throw new GatewayError('invalid_request', 'chain_id: too long');
  return raw;
}

/**
 * The control plane's reads of the events ledger, across every chain (sidecar) of the caller's tenant: the local
 * routes' paths and shapes, each entry and proof naming its chain (docs/fleet.md, "Reading the archive").
 */
export function registerArchiveEventRoutes(server: HttpServer, archive: PgLedgerArchive, options: ArchiveEventRouteOptions = {}): void {
  const defaultLimit = options.defaultLimit ?? 50;
  const maxLimit = options.maxLimit ?? 500;

  server.route('get', '/v1/events', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    queryTenant(ctx);
    const limit = limitParam(ctx, defaultLimit, maxLimit);
    const order = ctx.query.get('order') ?? 'asc';
    if (order !== 'asc' && order !== 'desc') throw new GatewayError('invalid_request', 'order: asc or desc');
    const page = await archive.list(ctx.auth.tenantId, {
      limit,
      order,
      cursor: cursorParam(ctx),
      agentId: nameParam(ctx, ['agentId', 'agent_id']),
      eventType: nameParam(ctx, ['event_type', 'eventType']),
      chainId: chainParam(ctx, false),
    });
    return { status: 200, body: page };
  });

  server.route('get', '/v1/fleet/chains', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    return { status: 200, body: { data: await archive.chains(ctx.auth.tenantId) } };
  });

  server.route('get', '/v1/events/verify', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    queryTenant(ctx);
    const chains = await archive.verifyTenant(ctx.auth.tenantId);
    return { status: 200, body: { tenant_id: ctx.auth.tenantId, ok: chains.every((c) => c.ok), chains } };
  });

  server.route('get', '/v1/events/proofs/inclusion', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    const chainId = chainParam(ctx, true) as string;
    const seq = intParam(ctx, 'seq', true) as number;
    const treeSize = intParam(ctx, 'tree_size', false);
    return { status: 200, body: await archive.inclusionProof(ctx.auth.tenantId, chainId, seq, treeSize) };
  });

  server.route('get', '/v1/events/proofs/consistency', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    const chainId = chainParam(ctx, true) as string;
    const from = intParam(ctx, 'from', true) as number;
    const to = intParam(ctx, 'to', false);
    return { status: 200, body: await archive.consistencyProof(ctx.auth.tenantId, chainId, from, to) };
  });

  server.route('get', '/v1/events/checkpoints', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    const chainId = chainParam(ctx, true) as string;
    const limit = limitParam(ctx, defaultLimit, maxLimit);
    const fromSize = intParam(ctx, 'from_size', false) ?? 0;
    const { chain, data } = await archive.checkpoints(ctx.auth.tenantId, chainId, fromSize, limit);
    return { status: 200, body: { chain_id: chain.chain_id, data, public_key: chain.public_key } };
  });
}
