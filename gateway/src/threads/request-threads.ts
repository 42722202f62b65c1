import type { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import type { Logger } from '@aduana/shared';
import { startModuleWorker } from '../platform/start-module-worker.js';
import { notice, type NoticeSlot } from '../platform/notice-slot.js';
import type { FromRequestThread, ToRequestThreadControl } from './request-thread-protocol.js';
import type { RequestThreadData } from './request-thread-main.js';
import type { JudgingSetup } from './request-thread-gateway.js';

const REQUEST_THREAD = new URL('./request-thread-main.js', import.meta.url);

interface Thread {
  readonly worker: Worker;
  /** Its app's descriptor once built (-1 before, and for a thread that failed or was refused). */
  descriptor: number;
  /** Set once the thread was told to close (or was lost): its exit is then expected. */
  closing: boolean;
  /** Resolves when the thread ended. */
  readonly ended: Promise<void>;
}

export interface RequestThreadOptions {
  /** How many threads. */
  readonly count: number;
  readonly logger: Logger;
  /** How long a closing thread waits for what it has open. */
  readonly graceMs: number;
  /** Each thread's setup: plain data, shared memory, its own ledger port. */
  readonly judging: () => JudgingSetup;
  /** What a thread's requests did that the main thread keeps (its decisions' observers, answers' latencies). */
  readonly onObserved?: (msg: Extract<FromRequestThread, { t: 'observed' }>) => void;
}

/**
 * The request threads of the agents' port, each with its own uWS app serving the agents' calls, to which the port's
 * acceptor hands connections. Launched early (they build their apps while the main thread builds the rest), they
 * take connections once ready and their routes checked (`ready`), and close after the main thread's apps drained.
 */
export class RequestThreads {
  readonly #threads: Thread[];
  /** Takes a thread's app from the port's acceptor (set by the port when it listens). */
  #detach: (descriptor: number) => void = () => {};
  #nextAck = 0;
  readonly #acks = new Map<number, { waiting: Set<Thread>; resolve: () => void }>();
  /** Notices not yet acknowledged by every thread: an admin answer waits for them (`settled`). */
  readonly #unsettled = new Set<Promise<void>>();
  readonly #built: Promise<FromRequestThread>[];
  readonly #logger: Logger;

  private constructor(threads: Thread[], built: Promise<FromRequestThread>[], logger: Logger) {
    this.#threads = threads;
    this.#built = built;
    this.#logger = logger;
  }

  /** Starts the threads building; `ready` says when they may take connections. */
  static launch(options: RequestThreadOptions): RequestThreads {
    const all = new RequestThreads([], [], options.logger);
    for (let i = 0; i < options.count; i++) {
      const judging = options.judging();
      const data: RequestThreadData = { graceMs: options.graceMs, judging };
      const worker = startModuleWorker(REQUEST_THREAD, { workerData: data, transferList: [judging.ledger], name: 'request-thread' });
      // Until it serves, a thread does not keep the process alive: a start-up that fails before then can end.
      worker.unref();
      const t: Thread = { worker, descriptor: -1, closing: false, ended: once(worker, 'exit').then(() => {}) };
      all.#threads.push(t);
      all.#built.push(
        new Promise<FromRequestThread>((resolve) => {
          worker.on('message', (msg: FromRequestThread) => {
            if (msg.t === 'ack') all.#ack(msg.n, t);
            else if (msg.t === 'observed') options.onObserved?.(msg);
            else if (msg.t === 'ready' || msg.t === 'failed') resolve(msg);
          });
          worker.once('exit', () => resolve({ t: 'failed', message: 'the thread ended before its app was ready' }));
        }),
      );
      worker.on('error', (err) => options.logger.error({ err }, 'a request thread failed'));
      worker.on('exit', (code) => {
        if (t.closing) return;
        // Its connections are gone with it; new ones go to the threads left.
        t.closing = true;
        all.#detach(t.descriptor);
        all.#lost(t);
        options.logger.error({ code }, 'a request thread ended unexpectedly');
      });
    }
    return all;
  }

  /**
   * Resolves once every thread's app is built, each taking connections only if it serves exactly `routes` (the main
   * thread's agents' routes, "method pattern"): one that does not, or failed to build, is closed and logged, and the
   * others serve. Resolves with how many serve.
   */
  async ready(routes: readonly string[]): Promise<number> {
    const want = [...routes].sort().join('\n');
    const results = await Promise.all(this.#built);
    let serving = 0;
    await Promise.all(
      results.map(async (msg, i) => {
        const t = this.#threads[i] as Thread;
        if (msg.t === 'ready' && [...msg.routes].sort().join('\n') === want) {
          t.descriptor = msg.descriptor;
          t.worker.ref();
          serving++;
          return;
        }
        const why = msg.t === 'failed' ? msg.message : "its routes are not the main thread's agents' routes";
        this.#logger.error({ why }, 'a request thread could not serve; the others serve without it');
        await this.#closeOne(t);
      }),
    );
    return serving;
  }

  /** Called by the port that listens with these threads: how to take a thread's app from its acceptor. */
  attach(detach: (descriptor: number) => void): void {
    this.#detach = detach;
  }

  /** The ready apps' descriptors, for the port's acceptor. */
  get descriptors(): readonly number[] {
    return this.#threads.filter((t) => !t.closing && t.descriptor !== -1).map((t) => t.descriptor);
  }

  /** Tells every thread of a change to what it caches; the promise `settled` returns until each applied it. */
  notify<T>(slot: NoticeSlot<T>, value: T): void {
    const n = notice(slot, value);
    const done = this.#toAll((ack) => ({ t: 'notice', n: ack, notice: n }));
    this.#unsettled.add(done);
    void done.then(() => this.#unsettled.delete(done));
  }

  /** Resolves once every notice sent so far was applied by every thread; null when none is outstanding. */
  settled(): Promise<void> | null {
    return this.#unsettled.size === 0 ? null : Promise.all(this.#unsettled).then(() => {});
  }

  /** Resolves once every ledger and decision write the threads handed over so far is committed. */
  barrier(): Promise<void> {
    return this.#toAll((n) => ({ t: 'barrier', n }));
  }

  #toAll(make: (n: number) => ToRequestThreadControl): Promise<void> {
    const live = this.#threads.filter((t) => !t.closing);
    if (live.length === 0) return Promise.resolve();
    const n = ++this.#nextAck;
    const done = new Promise<void>((resolve) => this.#acks.set(n, { waiting: new Set(live), resolve }));
    const msg = make(n);
    for (const t of live) t.worker.postMessage(msg);
    return done;
  }

  #ack(n: number, t: Thread): void {
    const pending = this.#acks.get(n);
    if (pending === undefined) return;
    pending.waiting.delete(t);
    if (pending.waiting.size > 0) return;
    this.#acks.delete(n);
    pending.resolve();
  }

  /** A thread ended (or will not serve): nothing waits for its acknowledgements. */
  #lost(t: Thread): void {
    for (const n of [...this.#acks.keys()]) this.#ack(n, t);
  }

  /**
   * Closes one thread: its app is first taken from the acceptor (no new connections), then the thread answers what it
   * has open, closes its sockets and commits what it wrote. Resolves when it ended.
   */
  async #closeOne(t: Thread): Promise<void> {
    if (t.closing) return;
    t.closing = true;
    this.#detach(t.descriptor);
    // Waited for: the process must not end (its loop empty, a thread not yet serving is unref'd) meanwhile.
    t.worker.ref();
    t.worker.postMessage({ t: 'close' } satisfies ToRequestThreadControl);
    await t.ended;
    // Acknowledgements it will never send are not waited for.
    this.#lost(t);
  }

  /** Closes every thread; resolves when every one ended. */
  async close(): Promise<void> {
    await Promise.all(this.#threads.map((t) => this.#closeOne(t)));
  }
}
