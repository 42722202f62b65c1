import type { Dispatcher } from 'undici';
import { backoffMs, request } from '@aduana/shared';
import type { Checkpoint, EventsLedger, LedgerEntry } from '../../ledger/index.js';
import { encodeCursor } from '../../ledger/log/cursor.js';
import type { ShipCursor, ShipCursorStore } from './ship-cursor-store.js';
import { SHIPPING_FORMAT, type ShippedAck, type ShippedBatch } from './shipping-format.js';

export interface LedgerShipperOptions {
  ledger: EventsLedger;
  cursors: ShipCursorStore;
  /** This sidecar's instance id (made once per data dir): chain ids are `<instance id>/<tenant id>`. */
  instanceId: string;
  controlPlaneUrl: string;
  sidecarToken: string;
  /** The egress proxy's dispatcher, when one is set (default: straight to the control plane). */
  dispatcher?: Dispatcher | undefined;
  /** Entries per batch (SHIP_BATCH_MAX, default 5,000: a backlog drains in fewer, cheaper transactions, docs/fleet.md). */
  batchMax?: number;
  /** A look for unshipped entries at least this often, ms (SHIP_INTERVAL_MS, default 1,000). */
  intervalMs?: number;
  /** First retry delay after a failure, ms (SHIP_BACKOFF_BASE_MS, default 250). */
  backoffBaseMs?: number;
  /** Longest retry delay, ms (SHIP_BACKOFF_MAX_MS, default 30,000). */
  backoffMaxMs?: number;
  /** A batch larger than this, serialised, is halved until it fits (SHIP_BATCH_BYTES, default 8 MiB). */
  batchBytes?: number;
  /** Time allowed for one POST, ms (SHIP_TIMEOUT_MS, default 10,000). */
  timeoutMs?: number;
  /** How long an append waits for others to join its batch before the shipper runs, ms (SHIP_LINGER_MS, default 1000). */
  lingerMs?: number;
  /** Failures are never thrown (the shipper retries); each is reported here. */
  onError?: (err: unknown) => void;
  random?: () => number;
}

/** One chain's lag, for health and metrics. */
export interface ChainLag {
  tenant_id: string;
  chain_id: string;
  acked_seq: number;
  head_seq: number;
  /** Entries in the local ledger the control plane has not acknowledged. */
  pending: number;
}

export interface ShipperStatus {
  chains: ChainLag[];
  pending: number;
  /** Consecutive failed attempts (0 once a batch is acknowledged again). */
  failures: number;
  last_error: string | null;
  last_error_at: string | null;
  last_ack_at: string | null;
}

/** A batch the control plane did not acknowledge. */
export class ShipError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'ShipError';
  }
}

/**
 * A sidecar's ledger shipper (docs/fleet.md, "Shipping the ledger"). The local ledger is the durable outbox: for
 * each tenant, entries after the cursor (the last seq the control plane acknowledged) go out as a ShippedBatch with
 * the checkpoints that fall within them; the cursor moves only after the acknowledgement, so after a crash of
 * either side the next round resends from it and the control plane skips what it already holds. Woken by the
 * ledger's durable appends (a flag, nothing on the request path) and by a timer; on failure it backs off.
 */
export class LedgerShipper {
  readonly #o: Required<Omit<LedgerShipperOptions, 'onError' | 'random' | 'dispatcher'>> & Pick<LedgerShipperOptions, 'onError' | 'random' | 'dispatcher'>;
  readonly #endpoint: string;
  #running: Promise<void> | null = null;
  #again = false;
  #closed = false;
  #interval: NodeJS.Timeout | null = null;
  #retry: NodeJS.Timeout | null = null;
  #linger: NodeJS.Timeout | null = null;
  #abort = new AbortController();
  #failures = 0;
  #lastError: string | null = null;
  #lastErrorAt: string | null = null;
  #lastAckAt: string | null = null;

  constructor(options: LedgerShipperOptions) {
    this.#o = { batchMax: 5000, batchBytes: 8 * 1024 * 1024, intervalMs: 1000, backoffBaseMs: 250, backoffMaxMs: 30_000, timeoutMs: 10_000, lingerMs: 1000, ...options };
    this.#endpoint = `${options.controlPlaneUrl.replace(/\/+$/, '')}/v1/fleet/ledger`;
  }

  start(): void {
    // An append does not ship at once: one POST per proxied call cost more CPU than the call itself. Appends within
    // the linger share a batch, as a producer's linger does.
    this.#o.ledger.setDurableListener(() => {
      if (this.#linger !== null || this.#closed) return;
      this.#linger = setTimeout(() => {
        this.#linger = null;
        this.wake();
      }, this.#o.lingerMs);
      this.#linger.unref();
    });
    this.#interval = setInterval(() => this.wake(), this.#o.intervalMs);
    this.#interval.unref();
    this.wake();
  }

  /** Ship now (or right after the round in progress); a no-op while backing off, whose timer will ship. */
  wake(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#retry) return;
    this.#running = this.#round().finally(() => {
      this.#running = null;
    });
  }

  /** Highest seq of the tenant's chain the control plane acknowledged: ledger retention may prune through it. */
  ackedThrough(tenantId: string): number {
    return this.#o.cursors.get(tenantId).acked_seq;
  }

  chainId(tenantId: string): string {
    return `${this.#o.instanceId}/${tenantId}`;
  }

  status(): ShipperStatus {
    const chains: ChainLag[] = [];
    let pending = 0;
    for (const tenantId of this.#o.ledger.tenants()) {
      const head = this.#o.ledger.head(tenantId).size;
      const acked = this.#o.cursors.get(tenantId).acked_seq;
      const lag = Math.max(0, head - acked);
      pending += lag;
      chains.push({ tenant_id: tenantId, chain_id: this.chainId(tenantId), acked_seq: acked, head_seq: head, pending: lag });
    }
    return { chains, pending, failures: this.#failures, last_error: this.#lastError, last_error_at: this.#lastErrorAt, last_ack_at: this.#lastAckAt };
  }

  /** Stops shipping: the round in flight is aborted (its batch is resent by the next start). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#o.ledger.setDurableListener(null);
    if (this.#interval) clearInterval(this.#interval);
    if (this.#retry) clearTimeout(this.#retry);
    if (this.#linger) clearTimeout(this.#linger);
    this.#abort.abort();
    await this.#running;
  }

  async #round(): Promise<void> {
    try {
      do {
        this.#again = false;
        for (const tenantId of this.#o.ledger.tenants()) {
          while (!this.#closed && (await this.#shipOne(tenantId)));
        }
      } while (this.#again && !this.#closed);
      this.#failures = 0;
    } catch (err) {
      if (this.#closed) return;
      this.#failures++;
      this.#lastError = err instanceof Error ? err.message : String(err);
      this.#lastErrorAt = new Date().toISOString();
      this.#o.onError?.(err);
      const delay = backoffMs(this.#failures, { baseMs: this.#o.backoffBaseMs, maxMs: this.#o.backoffMaxMs, jitter: true, random: this.#o.random });
      this.#retry = setTimeout(() => {
        this.#retry = null;
        this.wake();
      }, delay);
      this.#retry.unref();
    }
  }

  /** Ships one batch of the tenant's chain; true when it shipped something (there may be more). */
  async #shipOne(tenantId: string): Promise<boolean> {
    const { ledger, cursors, batchMax } = this.#o;
    const head = ledger.head(tenantId).size;
    const cursor = cursors.get(tenantId);
    const entries =
      cursor.acked_seq < head ? ledger.list(tenantId, { limit: batchMax, cursor: cursor.acked_seq > 0 ? encodeCursor('asc', cursor.acked_seq) : null }).events : [];
    const packed = this.#pack(tenantId, cursor, entries);
    if (!packed) return false;
    const { upTo, checkpoints, body } = packed;
    const chainId = this.chainId(tenantId);
    const ack = await this.#post(chainId, body);
    if (ack.chain_id !== chainId || !Number.isSafeInteger(ack.acked_seq) || ack.acked_seq < upTo) {
      throw new ShipError(`the control plane acknowledged ${ack.chain_id}#${ack.acked_seq}, not ${chainId} up to ${upTo}`, 200, null);
    }
    // It may hold more than this batch (a resend after a lost cursor write): skip to it, never past the local head.
    const acked = Math.min(ack.acked_seq, head);
    const cpSize = checkpoints.reduce((m, cp) => Math.max(m, cp.tree_size), cursor.checkpoint_size);
    await cursors.put(tenantId, { acked_seq: Math.max(acked, cursor.acked_seq), checkpoint_size: cpSize });
    this.#lastAckAt = new Date().toISOString();
    return true;
  }

  /**
   * The batch to send: the entries with the checkpoints that fall within them, halved while its body passes the byte
   * cap (entries are up to LEDGER_MAX_ENTRY_BYTES each). Null when there is nothing to send. A batch of entries ends
   * in a checkpoint covering its last one, as the control plane requires (it proves the batch was made with the
   * chain's key): a stored one when there is one at that size, else one signed for the batch (one signature a batch).
   */
  #pack(tenantId: string, cursor: ShipCursor, entries: LedgerEntry[]): { upTo: number; checkpoints: Checkpoint[]; body: string } | null {
    const { ledger, batchMax, batchBytes } = this.#o;
    for (;;) {
      const upTo = entries.length > 0 ? entries[entries.length - 1]!.seq : cursor.acked_seq;
      // Checkpoints are signed every N entries or T seconds, so one may arrive after its entries were shipped: it
      // goes out with the next batch, or alone.
      const checkpoints = ledger.checkpoints(tenantId, { fromSize: cursor.checkpoint_size + 1, limit: batchMax }).filter((cp) => cp.tree_size <= upTo);
      if (entries.length === 0 && checkpoints.length === 0) return null;
      if (entries.length > 0 && checkpoints[checkpoints.length - 1]?.tree_size !== upTo) checkpoints.push(ledger.signCheckpoint(tenantId, upTo));
      const batch: ShippedBatch = { format: SHIPPING_FORMAT, chain_id: this.chainId(tenantId), tenant_id: tenantId, public_key: ledger.publicKey, entries, checkpoints };
      const body = JSON.stringify(batch);
      if (Buffer.byteLength(body) <= batchBytes || entries.length <= 1) return { upTo, checkpoints, body };
      entries = entries.slice(0, Math.ceil(entries.length / 2));
    }
  }

  async #post(chainId: string, body: string): Promise<ShippedAck> {
    const res = await request(this.#endpoint, {
      dispatcher: this.#o.dispatcher,
      method: 'POST',
      headers: { authorization: `Bearer ${this.#o.sidecarToken}`, 'content-type': 'application/json' },
      body,
      headersTimeout: this.#o.timeoutMs,
      bodyTimeout: this.#o.timeoutMs,
      signal: this.#abort.signal,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) {
      let code: string | null = null;
      let message = text.slice(0, 300);
      try {
        const body = JSON.parse(text) as { error?: { code?: unknown; type?: unknown; message?: unknown } };
        code = typeof body.error?.type === 'string' ? body.error.type : null;
        if (typeof body.error?.message === 'string') message = body.error.message;
      } catch {
        // not the control plane's error body: keep the start of the text
      }
      throw new ShipError(`control plane answered ${res.statusCode} to ${chainId}: ${message}`, res.statusCode, code);
    }
    return JSON.parse(text) as ShippedAck;
  }
}
