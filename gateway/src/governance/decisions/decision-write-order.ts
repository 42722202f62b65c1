import type { GatewayStore } from '../../storage/gateway-store.js';
import { writeDecision, type DecisionRecord } from './decision-store.js';

/**
 * How long after its call began a decision record is put. Its key (the decision id, a ULID) is made when the call
 * arrives, the record when the call is answered, and request threads hand theirs over in batches (writer-client.ts):
 * records reach the index out of key order by about a call's latency. LMDB splits a full page in the middle when a key
 * lands before the page's last one, and those halves stay half full: with two request threads a proxied call's
 * decision record took ~230 B of pages instead of ~170 B in key order (docs/benchmarks.md, "Disk per proxied call").
 * Held until then and put in key order, a record lands after the last one put unless its call took longer.
 */
export const DECISION_HOLD_MS = 100;

/** How often held records are looked at. */
const TICK_MS = 10;

/** Records held at most: past this every held record is put at once (~3,000 calls a second hold ~300). */
export const DECISION_HOLD_MAX = 2048;

interface Held {
  readonly rec: DecisionRecord;
  /** When it is put, ms since the epoch. */
  readonly due: number;
  readonly resolve: (value: boolean) => void;
  readonly reject: (err: unknown) => void;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE32 = new Int8Array(128).fill(-1);
for (let i = 0; i < 32; i++) BASE32[CROCKFORD.charCodeAt(i)] = i;

/** The millisecond a `prefix_ULID` id was made in, or NaN for an id of another shape. */
export function idTime(id: string): number {
  const at = id.indexOf('_') + 1;
  if (id.length - at !== 26) return NaN;
  let t = 0;
  for (let i = at; i < at + 10; i++) {
    const v = BASE32[id.charCodeAt(i)] ?? -1;
    if (v < 0) return NaN;
    t = t * 32 + v;
  }
  return t;
}

function byKey(a: Held, b: Held): number {
  const ta = a.rec.tenant_id;
  const tb = b.rec.tenant_id;
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ia = a.rec.decision_id;
  const ib = b.rec.decision_id;
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}

/**
 * The decision index's writes, each held until DECISION_HOLD_MS after its call began and put in key order, so that
 * pages fill as they would with keys in order. Each write settles once its record is committed, as `writeDecision`'s
 * does. Whoever needs them committed sooner (a resolve, a reader on another thread, a close) calls `flush`.
 */
export class OrderedDecisionWrites {
  #held: Held[] = [];
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: GatewayStore,
    private readonly holdMs = DECISION_HOLD_MS,
    private readonly max = DECISION_HOLD_MAX,
  ) {}

  write(rec: DecisionRecord): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const now = Date.now();
      const began = idTime(rec.decision_id);
      this.#held.push({ rec, due: (began <= now ? began : now) + this.holdMs, resolve, reject });
      if (this.#held.length >= this.max) this.flush();
      else this.#timer ??= setTimeout(() => this.#tick(), TICK_MS);
    });
  }

  /** Puts every held record now. */
  flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const held = this.#held;
    this.#held = [];
    this.#put(held);
  }

  #tick(): void {
    this.#timer = null;
    const now = Date.now();
    const due: Held[] = [];
    const later: Held[] = [];
    for (const h of this.#held) (h.due <= now ? due : later).push(h);
    this.#held = later;
    this.#put(due);
    if (later.length > 0) this.#timer = setTimeout(() => this.#tick(), TICK_MS);
  }

  /** Into LMDB's next write, in key order. */
  #put(held: Held[]): void {
    held.sort(byKey);
    for (const h of held) {
      try {
        writeDecision(this.store, h.rec).then(h.resolve, h.reject);
      } catch (err) {
        h.reject(err);
      }
    }
  }
}
