import { GatewayError } from '../errors.js';
import type { RequestContext } from './request-context.js';

const RETRY_AFTER = Object.freeze({ 'retry-after': '1' });

/**
 * Request body bytes held in memory at once, across every request of both ports, with one tenant's share capped too
 * (docs/sidecar.md, "Limits at the edge"). A body with a declared length reserves it all before its first byte is read;
 * a chunked body reserves as it arrives. The reservation is released when the request is answered or the client
 * leaves. Unauthenticated bodies (public routes) count against the global cap only.
 */
export class BodyBudget {
  #total = 0;
  readonly #byTenant = new Map<string, number>();

  constructor(
    readonly maxTotal: number,
    readonly maxPerTenant: number,
  ) {}

  /** Bytes reserved right now (a gauge). */
  get bytesInFlight(): number {
    return this.#total;
  }

  /** Reserves `n` more bytes for `ctx`; throws 503 server_busy or 429 tenant_bytes_in_flight past a cap. */
  reserve(ctx: RequestContext, n: number): void {
    if (this.#total + n > this.maxTotal) throw new GatewayError('server_busy', undefined, '', RETRY_AFTER);
    const tenant = ctx.principal?.tenantId;
    if (tenant !== undefined) {
      const held = this.#byTenant.get(tenant) ?? 0;
      if (held + n > this.maxPerTenant) throw new GatewayError('tenant_bytes_in_flight', undefined, '', RETRY_AFTER);
      this.#byTenant.set(tenant, held + n);
      ctx.reservedTenant = tenant;
    }
    this.#total += n;
    ctx.reservedBytes += n;
  }

  /** Gives back everything `ctx` reserved (idempotent). */
  release(ctx: RequestContext): void {
    const n = ctx.reservedBytes;
    if (n === 0) return;
    ctx.reservedBytes = 0;
    this.#total -= n;
    const tenant = ctx.reservedTenant;
    if (tenant !== null) {
      const left = (this.#byTenant.get(tenant) ?? 0) - n;
      if (left > 0) this.#byTenant.set(tenant, left);
      else this.#byTenant.delete(tenant);
      ctx.reservedTenant = null;
    }
  }
}
