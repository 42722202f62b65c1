/**
 * Each tenant's appends handed over and not yet answered, so a read can first wait for those made before it: what a
 * client was answered before it asked is then in what it reads (docs/ledger.md, "Reading what was just written").
 */
export class AppendsInFlight {
  readonly #byTenant = new Map<string, Set<Promise<unknown>>>();

  /** Tracks `append` until it settles; returns it. */
  track<T>(tenantId: string, append: Promise<T>): Promise<T> {
    let pending = this.#byTenant.get(tenantId);
    if (pending === undefined) this.#byTenant.set(tenantId, (pending = new Set()));
    pending.add(append);
    const settled = (): void => {
      pending.delete(append);
      if (pending.size === 0 && this.#byTenant.get(tenantId) === pending) this.#byTenant.delete(tenantId);
    };
    append.then(settled, settled);
    return append;
  }

  /** Resolves once every append of the tenant tracked so far settled (answered or failed); later ones are not waited for. */
  settled(tenantId: string): Promise<void> {
    const pending = this.#byTenant.get(tenantId);
    if (pending === undefined) return Promise.resolve();
    return Promise.allSettled([...pending]).then(() => undefined);
  }
}
