import { GatewayError } from '../../errors.js';

/**
 * Each tenant's share of the event loop spent judging its inputs: a leaky bucket of milliseconds. Evaluation time is
 * charged after it is spent; a tenant whose debt is past `burstMs` is refused (429, Retry-After) before any more of its
 * inputs are judged, and the debt drains at `perSecondMs` per second. One tenant's costly inputs can thus take at most
 * that share of the loop from the others, sustained (docs/policies.md, "Limits").
 */
export class EvaluationTime {
  readonly #debt = new Map<string, { ms: number; at: number }>();

  constructor(
    private readonly burstMs: number,
    private readonly perSecondMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws evaluation_time_exceeded while the tenant's debt is past the burst. */
  admit(tenantId: string): void {
    const d = this.#debt.get(tenantId);
    if (!d) return;
    const ms = this.#drained(d);
    if (ms <= this.burstMs) return;
    const retry = Math.max(1, Math.ceil((ms - this.burstMs) / this.perSecondMs));
    throw new GatewayError('evaluation_time_exceeded', `this tenant's inputs used up its policy-evaluation time; retry in ${retry} s`, '', { 'retry-after': String(retry) });
  }

  /** Adds time spent judging one of the tenant's inputs. */
  charge(tenantId: string, ms: number): void {
    const d = this.#debt.get(tenantId);
    if (!d) {
      this.#debt.set(tenantId, { ms, at: this.now() });
      return;
    }
    d.ms = this.#drained(d) + ms;
    d.at = this.now();
  }

  #drained(d: { ms: number; at: number }): number {
    return Math.max(0, d.ms - ((this.now() - d.at) / 1000) * this.perSecondMs);
  }
}
