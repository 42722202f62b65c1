import { GatewayError } from '../errors.js';
import { SharedTable, type SharedTableMemory } from '../platform/shared-table.js';
import type { RequestContext } from './request-context.js';

const RETRY_AFTER = Object.freeze({ 'retry-after': '1' });
/** The record of the whole process's bytes (tenant ids are never empty). */
const TOTAL = '';
const BYTES = 1;
/** Tenants holding bytes at once: room for four times as many as fill the default global cap with 1 MiB each. */
const SLOTS = 1 << 14;

export function createBodyBudgetMemory(): SharedTableMemory {
  return SharedTable.create(SLOTS, 1);
}

/**
 * Request body bytes held in memory at once, across every request of both ports and every thread, with one tenant's
 * share capped too (docs/sidecar.md, "Limits at the edge"). The counts are in shared memory: the memory they guard is
 * the process's. A body with a declared length reserves it all before its first byte is read; a chunked body reserves
 * as it arrives. The reservation is released when the request is answered or the client leaves. Unauthenticated
 * bodies (public routes) count against the global cap only.
 */
export class BodyBudget {
  readonly #table: SharedTable;
  /** A tenant's record stays while it holds bytes. */
  readonly #holding = (slot: number): boolean => (this.#table.values[slot * this.#table.stride + BYTES] as number) > 0;

  constructor(
    readonly maxTotal: number,
    readonly maxPerTenant: number,
    memory: SharedTableMemory = createBodyBudgetMemory(),
  ) {
    this.#table = new SharedTable(memory);
  }

  get memory(): SharedTableMemory {
    return this.#table.memory;
  }

  /** Bytes reserved right now (a gauge). */
  get bytesInFlight(): number {
    return this.#add(TOTAL, 0, Infinity) ?? 0;
  }

  /** Reserves `n` more bytes for `ctx`; throws 503 server_busy or 429 tenant_bytes_in_flight past a cap. */
  reserve(ctx: RequestContext, n: number): void {
    if (this.#add(TOTAL, n, this.maxTotal) === null) throw new GatewayError('server_busy', undefined, '', RETRY_AFTER);
    const tenant = ctx.principal?.tenantId;
    if (tenant !== undefined) {
      if (this.#add(tenant, n, this.maxPerTenant) === null) {
        this.#add(TOTAL, -n, Infinity);
        throw new GatewayError('tenant_bytes_in_flight', undefined, '', RETRY_AFTER);
      }
      ctx.reservedTenant = tenant;
    }
    ctx.reservedBytes += n;
  }

  /** Gives back everything `ctx` reserved (idempotent). */
  release(ctx: RequestContext): void {
    const n = ctx.reservedBytes;
    if (n === 0) return;
    ctx.reservedBytes = 0;
    this.#add(TOTAL, -n, Infinity);
    const tenant = ctx.reservedTenant;
    if (tenant !== null) {
      this.#add(tenant, -n, Infinity);
      ctx.reservedTenant = null;
    }
  }

  /** Adds `n` to a count unless that would pass `max`: the new count, or null when refused (or no room for the key). */
  #add(key: string, n: number, max: number): number | null {
    const t = this.#table;
    const slot = t.acquire('', key, Date.now(), this.#holding);
    if (slot === -1) return null;
    const at = slot * t.stride + BYTES;
    try {
      const after = (t.values[at] as number) + n;
      if (n > 0 && after > max) return null;
      t.values[at] = after;
      return after;
    } finally {
      t.release(slot);
    }
  }
}
