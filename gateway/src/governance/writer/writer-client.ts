import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { RootDatabase } from 'lmdb';
import { startModuleWorker } from '../../platform/start-module-worker.js';
import type { DecisionRecord } from '../decisions/decision-store.js';
import type { AnchorStats } from '../../ledger/merkle/anchor-queue.js';
import type { ChainLink } from '../../ledger/log/entry-input.js';
import type { CommitWindow } from '../../ledger/ledger.js';
import { LedgerError } from '../../ledger/errors.js';
import type { FromWriter, ToWriter, WireError, WireInput, WriterCallName, WriterCalls, WriterSettings, WriterStarted } from './writer-protocol.js';

/**
 * Records handed to the writer and not yet answered, at most: past this the writer is behind the disk, and appends
 * are refused (LedgerError 'busy', 503) rather than queued without bound. About 1 GiB of entries at ~1 KiB each would
 * be a crash's worth of unanswered calls; this is far below it and far above any healthy backlog (a flush takes ~1 ms).
 */
export const MAX_UNANSWERED_RECORDS = 50_000;

/**
 * Characters of entry text handed to the writer and not yet answered, at most (the same refusal): an entry may be up
 * to 1 MiB, so the records' count alone would let one thread hold gigabytes. A write larger than this is still taken
 * when nothing else waits.
 */
export const MAX_UNANSWERED_CHARS = 32 * 1024 * 1024;

/**
 * Records that make the outbox go at once rather than at the end of the turn: a turn that reads several batches of
 * events would otherwise hand the writer nothing until it has judged them all, and the two threads take turns instead
 * of working side by side (bench:events, batches of 100).
 */
const SEND_AT_ONCE_RECORDS = 64;

/**
 * How long writes nobody waits for (grouped entries, decision records: the request path does not await them) may wait
 * for company before they are handed over: fewer, larger messages wake the writer less often. A write someone waits
 * for (an append of events, a call) goes at the end of the turn and takes them along.
 */
const LINGER_MS = 2;

interface Waiting {
  resolve(value: unknown): void;
  reject(err: unknown): void;
  records: number;
  chars: number;
}

/**
 * A request thread's end of the ledger's writer thread (writer-thread.ts): queues what the thread's requests write in
 * one event-loop turn and sends it as one message; answers each write when the writer says it settled. Before it
 * answers, the thread's LMDB read snapshot is renewed, so what was answered is what the thread then reads.
 */
export class LedgerWriterClient {
  /** The writer thread, when this client started it (the main thread's); null for a request thread's, on a port. */
  readonly #worker: Worker | null;
  /** Where the client's messages go: the thread itself, or a port the writer attached. */
  readonly #port: Worker | MessagePort;
  readonly #root: RootDatabase;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #waiting = new Map<number, Waiting>();
  #outbox: ToWriter[] = [];
  #immediate: NodeJS.Immediate | null = null;
  #linger: NodeJS.Timeout | null = null;
  #nextId = 1;
  #unanswered = 0;
  #unansweredChars = 0;
  /** Records in the outbox (sent at SEND_AT_ONCE_RECORDS). */
  #outboxRecords = 0;
  #failure: LedgerError | null = null;
  #closing = false;
  /** Barriers waiting for every write up to `through` to be answered, in the order they were set. */
  #barriers: { through: number; resolve: () => void }[] = [];
  #anchor: AnchorStats | null;
  /** Told which tenants' chains became durable (the fleet shipper's wake-up). */
  onDurable: ((tenantId: string) => void) | null = null;

  /**
   * Resolves once the writer opened the store and its ledger; rejects if it cannot. Writes made before are queued for
   * it (a worker's messages wait for it to listen), so start-up need not wait for the thread until it is to serve.
   */
  readonly ready: Promise<void>;
  /** Resolves when the thread has ended, however it ended. */
  readonly #exited: Promise<void>;

  /**
   * Starts the writer thread over the data directory's store (`settings.dataDir`), whose environment `root` is; or,
   * given the port another thread's client attached (`attach`), writes through that thread's writer.
   */
  constructor(source: WriterSettings | MessagePort, root: RootDatabase, onError: (err: unknown, context: string) => void, module = new URL('./writer-thread.js', import.meta.url)) {
    this.#root = root;
    this.#onError = onError;
    this.#anchor = null;
    if (!('dataDir' in source)) {
      this.#worker = null;
      this.#port = source;
      source.on('message', (message: FromWriter) => this.#receive(message));
      // The writer's thread ended (its ports close with it), or the main thread closed it.
      this.#exited = new Promise((resolve) => source.once('close', () => resolve()));
      void this.#exited.then(() => {
        if (!this.#closing) this.#fail(new Error('the ledger writer thread is gone'));
      });
      this.ready = Promise.resolve();
      return;
    }
    const worker = startModuleWorker(module, {
      workerData: source,
      name: 'ledger-writer',
    });
    this.#worker = worker;
    this.#port = worker;
    this.#exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    let started = false;
    this.ready = new Promise((resolve, reject) => {
      worker.on('message', (message: FromWriter | WriterStarted) => {
        if (started) return this.#receive(message as FromWriter);
        started = true;
        this.#anchor = (message as WriterStarted).anchor;
        // From here the writer never keeps the process alive by itself: close() ends it, and a process that exits
        // without closing loses only unanswered writes, as a crash would.
        worker.unref();
        resolve();
      });
      const failed = (err: unknown) => {
        if (!started) reject(err instanceof Error ? err : new Error(String(err)));
        this.#fail(err);
      };
      worker.on('error', failed);
      worker.on('exit', (code) => {
        if (!this.#closing) failed(new Error(`the ledger writer thread exited (code ${code})`));
      });
    });
    // Observed here so a start that fails unawaited is reported through #fail, not as an unhandled rejection.
    this.ready.catch(() => {});
  }

  /** Whether the writer thread failed (every write is refused from then on). */
  get failed(): boolean {
    return this.#failure !== null;
  }

  get anchorStats(): AnchorStats | null {
    return this.#anchor;
  }

  /** Hands inputs to the writer; throws (synchronously) when the writer failed or is too far behind. */
  append(tenant: string, window: CommitWindow, inputs: WireInput[]): Promise<ChainLink[]> {
    let chars = 0;
    for (let i = 0; i < inputs.length; i++) chars += (inputs[i] as WireInput).text.length;
    return this.#send(inputs.length, window === 'turn', (id) => ({ op: 'append', id, tenant, window, inputs }), chars) as Promise<ChainLink[]>;
  }

  /** The decision index's write; settles once committed. */
  writeDecision(record: DecisionRecord): Promise<unknown> {
    return this.#send(1, false, (id) => ({ op: 'decision', id, record }));
  }

  call<K extends WriterCallName>(method: K, ...args: WriterCalls[K]): Promise<unknown> {
    return this.#send(0, true, (id) => ({ op: 'call', id, method, args }) as ToWriter);
  }

  /**
   * Resolves once every write handed to this client so far is answered (committed, or failed): after it, another
   * thread's reads see them. What is queued goes at once. Resolves at once when nothing is waiting.
   */
  barrier(): Promise<void> {
    const through = this.#nextId - 1;
    if (this.#waiting.size === 0 || (this.#waiting.keys().next().value as number) > through) return Promise.resolve();
    // Decision records the writer holds to put them in key order go now, not when their hold ends.
    if (this.#failure === null) this.#outbox.push({ op: 'put-held' });
    this.#flush();
    return new Promise((resolve) => this.#barriers.push({ through, resolve }));
  }

  #releaseBarriers(): void {
    // Ids are sent in order and the map keeps insertion order: its first key is the oldest write still waiting.
    const oldest = this.#waiting.size === 0 ? Infinity : (this.#waiting.keys().next().value as number);
    while (this.#barriers.length > 0 && (this.#barriers[0] as { through: number }).through < oldest) this.#barriers.shift()?.resolve();
  }

  /**
   * A port on which another thread's client (`new LedgerWriterClient(port, ...)`) writes through this client's writer
   * thread: a request thread's ledger. Only the client that started the writer can attach one.
   */
  attach(): MessagePort {
    if (this.#worker === null) throw new Error('only the client that started the writer thread can attach another');
    const { port1, port2 } = new MessageChannel();
    this.#worker.postMessage({ attach: port2 }, [port2]);
    return port1;
  }

  /**
   * Sends what is queued and waits for it to be answered. The client that started the writer then asks it to close
   * its ledger (final checkpoints, flush) and waits for the thread to end; an attached client closes its port.
   */
  async close(): Promise<void> {
    if (this.#closing) return;
    const worker = this.#worker;
    if (worker === null) {
      this.#closing = true;
      // Nothing more is sent once closing: what was is answered before the port closes.
      await this.barrier();
      (this.#port as MessagePort).close();
      await this.#exited;
      return;
    }
    const closed = this.#failure ? Promise.resolve() : this.call('close');
    this.#closing = true;
    // Waited for: the process must not end (its loop empty) before the writer answered.
    worker.ref();
    this.#flush();
    try {
      await closed;
    } finally {
      if (this.#failure) await worker.terminate();
    }
    await this.#exited;
  }

  #send(records: number, awaited: boolean, make: (id: number) => ToWriter, chars = 0): Promise<unknown> {
    if (this.#failure) throw this.#failure;
    if (this.#closing) throw new LedgerError('closed', 'the ledger is closed');
    if (records > 0 && this.#unanswered + records > MAX_UNANSWERED_RECORDS) {
      throw new LedgerError('busy', `the ledger writer is ${this.#unanswered} records behind; retry shortly`);
    }
    if (chars > 0 && this.#unansweredChars > 0 && this.#unansweredChars + chars > MAX_UNANSWERED_CHARS) {
      throw new LedgerError('busy', `the ledger writer is ${this.#unansweredChars} characters of entries behind; retry shortly`);
    }
    const id = this.#nextId++;
    this.#outbox.push(make(id));
    this.#unanswered += records;
    this.#unansweredChars += chars;
    this.#outboxRecords += records;
    if (this.#outboxRecords >= SEND_AT_ONCE_RECORDS) this.#flush();
    else if (awaited) this.#immediate ??= setImmediate(() => this.#flush());
    else if (this.#immediate === null) this.#linger ??= setTimeout(() => this.#flush(), LINGER_MS);
    return new Promise((resolve, reject) => this.#waiting.set(id, { resolve, reject, records, chars }));
  }

  #flush(): void {
    if (this.#immediate !== null) clearImmediate(this.#immediate);
    if (this.#linger !== null) clearTimeout(this.#linger);
    this.#immediate = null;
    this.#linger = null;
    if (this.#outbox.length === 0 || this.#failure) return;
    const ops = this.#outbox;
    this.#outbox = [];
    this.#outboxRecords = 0;
    this.#port.postMessage(ops);
  }

  #receive(message: FromWriter): void {
    if (message.replies.length > 0) {
      // What the writer committed is visible to this thread's reads from here on.
      this.#root.resetReadTxn();
      for (const reply of message.replies) {
        const waiting = this.#waiting.get(reply.id);
        if (!waiting) continue;
        this.#waiting.delete(reply.id);
        this.#unanswered -= waiting.records;
        this.#unansweredChars -= waiting.chars;
        if ('error' in reply) waiting.reject(rebuild(reply.error));
        else waiting.resolve(reply.value);
      }
      if (this.#barriers.length > 0) this.#releaseBarriers();
    }
    if (this.onDurable) for (const tenantId of message.durable) this.onDurable(tenantId);
    for (const e of message.errors) this.#onError(Object.assign(new Error(e.message), e.stack ? { stack: e.stack } : {}), e.context);
    if (message.anchor !== undefined) this.#anchor = message.anchor;
  }

  /** The writer is gone: every unanswered write fails, and every later one is refused (fail closed). */
  #fail(err: unknown): void {
    if (this.#failure) return;
    this.#failure = new LedgerError('write_failed', 'the ledger writer thread failed; nothing more can be chained', null, { cause: err });
    this.#onError(err, 'ledger writer thread');
    for (const waiting of this.#waiting.values()) waiting.reject(this.#failure);
    this.#waiting.clear();
    this.#releaseBarriers();
    this.#outbox = [];
  }
}

function rebuild(error: WireError): Error {
  return error.code === null ? new Error(error.message) : new LedgerError(error.code, error.message, error.index);
}
