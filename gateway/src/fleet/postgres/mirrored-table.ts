/**
 * How one table is mirrored: the queries that read it (each row as `key` and `rec`, the record the repository
 * returns) and the in-memory indexes its reads need.
 */
export interface TableSpec<R> {
  /** The table's name, as the row notification (`<table>:<key>`) names it. */
  readonly table: string;
  /** Every row: `SELECT <key> AS key, <record> AS rec FROM …`. */
  readonly selectAll: string;
  /** One row, by the key's parts (the notification's key split on its first '/') as $1, $2. */
  readonly selectOne: string;
  /** Unique secondary keys (e-mail, token id): index name -> the record's value, null when it has none. */
  readonly unique?: Readonly<Record<string, (r: R) => string | null>>;
  /** The group a record belongs to (its tenant), for per-tenant listings. */
  readonly groupOf?: (r: R) => string;
}

export interface MirrorRow<R> {
  key: string;
  rec: R;
}

/** One table's rows in memory, with its secondary indexes kept in step on every change. */
export class MirroredTable<R> {
  readonly #rows = new Map<string, R>();
  readonly #unique = new Map<string, Map<string, string>>();
  readonly #groups = new Map<string, Set<string>>();

  constructor(readonly spec: TableSpec<R>) {
    for (const name of Object.keys(spec.unique ?? {})) this.#unique.set(name, new Map());
  }

  get(key: string): R | undefined {
    return this.#rows.get(key);
  }

  byUnique(index: string, value: string): R | undefined {
    const key = this.#unique.get(index)?.get(value);
    return key === undefined ? undefined : this.#rows.get(key);
  }

  /** The key of the row a unique index value names. */
  keyByUnique(index: string, value: string): string | undefined {
    return this.#unique.get(index)?.get(value);
  }

  /** The records of a group (unordered). */
  group(name: string): R[] {
    const keys = this.#groups.get(name);
    if (!keys) return [];
    const out: R[] = [];
    for (const k of keys) {
      const r = this.#rows.get(k);
      if (r !== undefined) out.push(r);
    }
    return out;
  }

  all(): R[] {
    return [...this.#rows.values()];
  }

  /** Replaces everything (the load at open and after a reconnect). */
  replaceAll(rows: readonly MirrorRow<R>[]): void {
    this.#rows.clear();
    this.#groups.clear();
    for (const idx of this.#unique.values()) idx.clear();
    for (const { key, rec } of rows) this.set(key, rec);
  }

  /** Sets (or, with undefined, deletes) one row. */
  set(key: string, rec: R | undefined): void {
    const old = this.#rows.get(key);
    if (old !== undefined) this.#unindex(key, old);
    if (rec === undefined) {
      this.#rows.delete(key);
      return;
    }
    this.#rows.set(key, rec);
    for (const [name, valueOf] of Object.entries(this.spec.unique ?? {})) {
      const v = valueOf(rec);
      if (v !== null) this.#unique.get(name)?.set(v, key);
    }
    if (this.spec.groupOf) {
      const g = this.spec.groupOf(rec);
      let keys = this.#groups.get(g);
      if (!keys) this.#groups.set(g, (keys = new Set()));
      keys.add(key);
    }
  }

  #unindex(key: string, old: R): void {
    for (const [name, valueOf] of Object.entries(this.spec.unique ?? {})) {
      const v = valueOf(old);
      const idx = this.#unique.get(name);
      if (v !== null && idx?.get(v) === key) idx.delete(v);
    }
    if (this.spec.groupOf) {
      const g = this.spec.groupOf(old);
      const keys = this.#groups.get(g);
      keys?.delete(key);
      if (keys && keys.size === 0) this.#groups.delete(g);
    }
  }
}
