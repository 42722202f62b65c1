import type { Dispatcher } from 'undici';
import type { Database } from 'lmdb';
import { newId, type Logger } from '@aduana/shared';
import type { FlushedSamples } from '../../telemetry/metric-store.js';
import type { ErrorEvent, LogEntry } from '../../telemetry/telemetry-records.js';
import { ControlPlaneLoop, type ControlPlaneLoopStatus } from './control-plane-loop.js';
import { batchSize, TELEMETRY_BATCH_FORMAT, type ShippedError, type ShippedLog, type ShippedMetric, type TelemetryBatch } from '../telemetry/telemetry-batch-format.js';

export interface TelemetryShipperOptions {
  /** The sidecar's fleet database: the queue is kept there across a graceful restart. */
  fleet: Database;
  instanceId: string;
  controlPlaneUrl: string;
  sidecarToken: string;
  /** The egress proxy's dispatcher, when one is set (default: straight to the control plane). */
  dispatcher?: Dispatcher | undefined;
  /** How often it ships (FLEET_TELEMETRY_SHIP_MS). */
  intervalMs: number;
  /** Most items in one batch (FLEET_TELEMETRY_BATCH_MAX). */
  batchMax: number;
  /** Largest batch body (FLEET_TELEMETRY_BODY_LIMIT): a batch is halved until it fits. */
  bodyLimit: number;
  /** Most items held (FLEET_TELEMETRY_QUEUE_MAX): past it new items are dropped and counted. */
  queueMax: number;
  /**
   * Most bytes held, each item counted as its shipped JSON (FLEET_TELEMETRY_QUEUE_MAX_BYTES): a log message may be
   * 16 KiB and a busy agent's second of samples more, so a count of items alone does not bound the memory.
   */
  queueMaxBytes: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  timeoutMs: number;
  logger: Logger;
}

export interface TelemetryShipperStatus extends ControlPlaneLoopStatus {
  /** Items waiting, the batch in flight included. */
  queued: number;
  /** Bytes of the items waiting (their JSON), the batch in flight included. */
  queued_bytes: number;
  /** Items the control plane acknowledged since start. */
  shipped: number;
  /** Items dropped since start: the queue was full, or the control plane refused them for good (400, 403, 413). */
  dropped: { queue_full: number; rejected: number };
}

type Item = { metric: ShippedMetric } | { log: ShippedLog } | { error: ShippedError };

/** The LMDB key of the queue kept across a graceful restart. */
const OUTBOX = 'telemetry_outbox';

interface Outbox {
  inflight: TelemetryBatch | null;
  queue: Item[];
}

interface Pending {
  batch: TelemetryBatch;
  body: string;
  /** Its items' sizes together: they count against the byte bound until acknowledged. */
  bytes: number;
}

/** Statuses after which resending the same batch cannot succeed. */
const REJECTED: ReadonlySet<number> = new Set([400, 403, 413]);

/**
 * Ships this sidecar's telemetry to the control plane (docs/fleet.md, "Telemetry"): the samples of every metric flush,
 * every stored log and error event (all PII-redacted already) are queued in memory, off the request path, and sent
 * every FLEET_TELEMETRY_SHIP_MS in batches. A batch keeps its id until acknowledged and is resent as it was after a
 * failure (capped backoff with jitter), so the control plane, which stores each batch id once, never counts twice.
 * The queue is bounded; what it cannot hold is dropped and counted, never silently. A graceful stop keeps the queue
 * in LMDB and the next start ships it.
 */
export class TelemetryShipper {
  #queue: Item[] = [];
  /** Each queued item's size (its JSON's UTF-8 bytes), in queue order, and their sum. */
  #sizes: number[] = [];
  #queuedBytes = 0;
  /** The batch being sent and its body, kept until acknowledged (a resend sends the same bytes). */
  #inflight: Pending | null = null;
  #warnedFull = false;
  #flushLocal: () => Promise<unknown> = () => Promise.resolve();
  readonly #counts = { shipped: 0, dropped: { queue_full: 0, rejected: 0 } };
  readonly #loop: ControlPlaneLoop;

  constructor(private readonly o: TelemetryShipperOptions) {
    this.#loop = new ControlPlaneLoop({ ...o, what: 'telemetry batch', path: '/v1/fleet/telemetry' }, () => this.shipOnce(), () => {
      this.#warnedFull = false;
    });
    const kept = o.fleet.get(OUTBOX) as Outbox | undefined;
    if (kept) {
      if (kept.inflight) {
        const body = JSON.stringify(kept.inflight);
        this.#inflight = { batch: kept.inflight, body, bytes: Buffer.byteLength(body) };
      }
      this.#queue = kept.queue;
      // Kept whole even past a lower bound than the one they were queued under: new items wait for the drain.
      this.#sizes = kept.queue.map(itemBytes);
      this.#queuedBytes = this.#sizes.reduce((a, b) => a + b, 0);
      // Taken: were it kept, a start after a crash would queue these items again under new batch ids.
      void o.fleet.remove(OUTBOX);
    }
  }

  /** Called before the queue is kept at close: the local stores hand over what they still buffer. */
  flushBeforeClose(flush: () => Promise<unknown>): void {
    this.#flushLocal = flush;
  }

  status(): TelemetryShipperStatus {
    return { queued: this.#queue.length + (this.#inflight ? batchSize(this.#inflight.batch) : 0), queued_bytes: this.#heldBytes(), shipped: this.#counts.shipped, dropped: { ...this.#counts.dropped }, ...this.#loop.status };
  }

  /** A metric flush's samples: one item per tenant, agent and second. */
  readonly onMetrics = (samples: FlushedSamples): void => {
    for (const [second, tenants] of samples) {
      for (const [tenant_id, agents] of tenants) {
        for (const [agent_id, slot] of agents) this.#push({ metric: { tenant_id, agent_id, second, slot } });
      }
    }
  };

  readonly onLog = (tenantId: string, e: LogEntry): void => {
    this.#push({ log: { tenant_id: tenantId, id: e.id, timestamp: e.timestamp, level: e.level, message: e.message, agent_id: e.agentId, trace_id: e.traceId, attributes: e.attributes } });
  };

  readonly onError = (tenantId: string, e: ErrorEvent): void => {
    this.#push({ error: { tenant_id: tenantId, id: e.id, timestamp: e.timestamp, level: e.level, message: e.message, agent_id: e.context.agentId, rule_id: e.context.ruleId, trace_id: e.context.traceId } });
  };

  start(): void {
    this.#loop.start();
  }

  /** Sends everything queued, batch by batch; resolves to the items acknowledged. Throws at the first failure. */
  async shipOnce(): Promise<number> {
    let sent = 0;
    for (;;) {
      const pending = this.#inflight ?? this.#nextBatch();
      if (pending === null) return sent;
      this.#inflight = pending;
      const n = batchSize(pending.batch);
      const { status, text } = await this.#loop.post(pending.body);
      if (status !== 200 && !REJECTED.has(status)) throw this.#loop.refused(status, text);
      this.#inflight = null;
      if (status === 200) {
        this.#counts.shipped += n;
        sent += n;
      } else {
        this.#counts.dropped.rejected += n;
        this.o.logger.error({ status, items: n }, 'the control plane refused a telemetry batch for good; its items are dropped');
      }
    }
  }

  async close(): Promise<void> {
    await this.#loop.close();
    await this.#flushLocal();
    const outbox: Outbox = { inflight: this.#inflight?.batch ?? null, queue: this.#queue };
    if (outbox.inflight || outbox.queue.length > 0) await this.o.fleet.put(OUTBOX, outbox);
    else await this.o.fleet.remove(OUTBOX);
  }

  #push(item: Item): void {
    const bytes = itemBytes(item);
    if (this.#queue.length >= this.o.queueMax || this.#heldBytes() + bytes > this.o.queueMaxBytes) {
      this.#counts.dropped.queue_full++;
      if (!this.#warnedFull) this.o.logger.warn({ queueMax: this.o.queueMax, queueMaxBytes: this.o.queueMaxBytes }, 'telemetry queue for the control plane is full; new items are dropped and counted');
      this.#warnedFull = true;
      return;
    }
    this.#queue.push(item);
    this.#sizes.push(bytes);
    this.#queuedBytes += bytes;
  }

  #heldBytes(): number {
    return this.#queuedBytes + (this.#inflight?.bytes ?? 0);
  }

  /** The next batch from the head of the queue: at most batchMax items, halved until its body fits. */
  #nextBatch(): Pending | null {
    let n = Math.min(this.o.batchMax, this.#queue.length);
    while (n > 0) {
      const batch = toBatch(this.o.instanceId, this.#queue.slice(0, n));
      const body = JSON.stringify(batch);
      if (n === 1 || Buffer.byteLength(body) <= this.o.bodyLimit) {
        this.#queue.splice(0, n);
        let bytes = 0;
        for (const size of this.#sizes.splice(0, n)) bytes += size;
        this.#queuedBytes -= bytes;
        return { batch, body, bytes };
      }
      n = Math.ceil(n / 2);
    }
    return null;
  }
}

/** What an item adds to a batch body: the UTF-8 bytes of its JSON. */
function itemBytes(item: Item): number {
  return Buffer.byteLength(JSON.stringify(item));
}

function toBatch(instanceId: string, items: readonly Item[]): TelemetryBatch {
  const batch: TelemetryBatch = { format: TELEMETRY_BATCH_FORMAT, instance_id: instanceId, batch_id: newId('tlb'), metrics: [], logs: [], errors: [] };
  for (const it of items) {
    if ('metric' in it) batch.metrics.push(it.metric);
    else if ('log' in it) batch.logs.push(it.log);
    else batch.errors.push(it.error);
  }
  return batch;
}
