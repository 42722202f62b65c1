import pg from 'pg';
import { clientConfig, type DatabaseOptions } from './database.js';
import { MirroredTable, type MirrorRow, type TableSpec } from './mirrored-table.js';

export const ROWS_CHANNEL = 'aduana_rows';
export const BUNDLE_CHANNEL = 'aduana_bundle';

export interface MirrorEvents {
  /** A fleet revision announced on aduana_bundle. */
  onRevision(revision: number): void;
  /** The listener is (re)connected and the mirror reloaded: notifications may have been missed meanwhile. */
  onResync(): Promise<void>;
}

/**
 * The process's copy of the small tables the repositories read synchronously (docs/fleet-storage.md).
 * Loaded at open; kept current by LISTEN aduana_rows on one dedicated connection, each notification re-reading its
 * row; after that connection is lost it reconnects and reloads everything (notifications sent meanwhile are gone).
 * Every read and every change is applied through one queue, in order, so an older read never overwrites a newer one;
 * the process's own writes go through it too as soon as they commit (read-your-writes in one process).
 */
export class TableMirror {
  readonly #tables = new Map<string, MirroredTable<unknown>>();
  #queue: Promise<void> = Promise.resolve();
  #listener: pg.Client | null = null;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly options: DatabaseOptions,
    private readonly retryMs: number,
    private readonly events: MirrorEvents,
  ) {}

  static async open(pool: pg.Pool, url: string, options: DatabaseOptions, retryMs: number, specs: readonly TableSpec<never>[], events: MirrorEvents): Promise<TableMirror> {
    const m = new TableMirror(pool, url, options, retryMs, events);
    for (const spec of specs) m.#tables.set(spec.table, new MirroredTable<unknown>(spec as TableSpec<unknown>));
    // Listening before loading: a change committed between the two is heard, never lost.
    try {
      await m.#connectListener();
      await m.reloadAll();
    } catch (err) {
      await m.close();
      throw err;
    }
    return m;
  }

  table<R>(name: string): MirroredTable<R> {
    const t = this.#tables.get(name);
    if (!t) throw new Error(`table ${name} is not mirrored`);
    return t as MirroredTable<R>;
  }

  /** Applies a committed write of this process (after any read already queued). */
  apply<R>(table: string, key: string, rec: R | undefined): Promise<void> {
    return this.#enqueue(async () => this.table<R>(table).set(key, rec));
  }

  /** Re-reads one row. */
  refresh(table: string, key: string): Promise<void> {
    const t = this.#tables.get(table);
    if (!t) return Promise.resolve();
    return this.#enqueue(async () => {
      const { rows } = await this.pool.query<MirrorRow<unknown>>(t.spec.selectOne, keyParts(key));
      t.set(key, rows[0]?.rec);
    });
  }

  reloadAll(): Promise<void> {
    return this.#enqueue(async () => {
      const loaded = await Promise.all([...this.#tables.values()].map(async (t) => ({ t, rows: (await this.pool.query<MirrorRow<unknown>>(t.spec.selectAll)).rows })));
      for (const { t, rows } of loaded) t.replaceAll(rows);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    const l = this.#listener;
    this.#listener = null;
    if (l) await l.end().catch(() => {});
    await this.#queue;
  }

  #enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(step);
    // The queue itself never stays rejected: the caller sees the failure, the next step still runs.
    this.#queue = run.catch(() => {});
    return run;
  }

  async #connectListener(): Promise<void> {
    const client = new pg.Client({ ...clientConfig(this.url, this.options), application_name: 'aduana-listener' });
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', (n) => this.#heard(n));
    await client.connect();
    await client.query(`LISTEN ${ROWS_CHANNEL}`);
    await client.query(`LISTEN ${BUNDLE_CHANNEL}`);
    if (this.#closed) {
      await client.end().catch(() => {});
      return;
    }
    this.#listener = client;
  }

  #heard(n: pg.Notification): void {
    if (n.channel === BUNDLE_CHANNEL) {
      const rev = Number(n.payload);
      // Through the queue: a bundle built at this revision must see the rows re-read for the notifications before it.
      if (Number.isSafeInteger(rev)) void this.#enqueue(async () => this.events.onRevision(rev));
      return;
    }
    const payload = n.payload ?? '';
    const colon = payload.indexOf(':');
    if (colon < 0) return;
    // A failed re-read is repaired by the reload that follows the reconnect.
    this.refresh(payload.slice(0, colon), payload.slice(colon + 1)).catch(() => {});
  }

  #lost(client: pg.Client): void {
    if (this.#listener !== client || this.#closed) return;
    this.#listener = null;
    client.end().catch(() => {});
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.#reconnect();
    }, this.retryMs);
    this.#retry.unref();
  }

  async #reconnect(): Promise<void> {
    try {
      await this.#connectListener();
      await this.reloadAll();
      await this.events.onResync();
    } catch {
      const l = this.#listener;
      this.#listener = null;
      if (l) await l.end().catch(() => {});
      this.#scheduleReconnect();
    }
  }
}

/** A notification's key as the query's parameters: split on the first '/' only (a tenant id never holds one, an agent id may). */
function keyParts(key: string): string[] {
  const slash = key.indexOf('/');
  return slash < 0 ? [key] : [key.slice(0, slash), key.slice(slash + 1)];
}
