import { MessageChannel, type Worker } from 'node:worker_threads';
import { once } from 'node:events';
import type { Logger } from '@aduana/shared';
import { startModuleWorker } from './start-module-worker.js';
import { RelayHost, type RelayedDispatch } from './relay/relay-host.js';
import type { RelayedRoute } from './relay/relay-protocol.js';
import type { FromRequestThread, ThreadNotice, ToRequestThreadControl } from './request-thread-protocol.js';
import type { RequestThreadData } from './request-thread-main.js';
import type { JudgingSetup } from './request-thread-gateway.js';

const REQUEST_THREAD = new URL('./request-thread-main.js', import.meta.url);

interface Thread {
  readonly worker: Worker;
  readonly relay: RelayHost;
  readonly descriptor: number;
  /** Set once the thread was told to close (or was lost): its exit is then expected. */
  closing: boolean;
}

export interface RequestThreadOptions {
  /** How many threads (GATEWAY_THREADS − 1: the main thread serves too). */
  readonly count: number;
  /** The port's routes, in the order the main thread registered them, and how to run one on a relayed request. */
  readonly routes: readonly RelayedRoute[];
  readonly dispatch: RelayedDispatch;
  readonly logger: Logger;
  /** How long a closing thread waits for what it has open. */
  readonly graceMs: number;
  /** Each thread's setup to judge requests itself (its own ledger port each), or null: threads relay every request. */
  readonly judging: (() => JudgingSetup) | null;
  /** What a judging thread's requests did that the main thread keeps (its decisions' observers, answers' latencies). */
  readonly onObserved?: (msg: Extract<FromRequestThread, { t: 'observed' }>) => void;
}

/**
 * The request threads of one port, each with its own uWS app to which the port's acceptor hands connections. Each
 * answers the judged routes itself (when `judging` is set) and relays every other request to the main thread's route
 * handlers (relay/). Started before the port listens; closed after the main thread's app drained.
 */
export class RequestThreads {
  readonly #threads: Thread[];
  /** Takes a thread's app from the port's acceptor (set by the port when it listens). */
  #detach: (descriptor: number) => void = () => {};
  #nextAck = 0;
  readonly #acks = new Map<number, { left: number; resolve: () => void }>();
  /** Notices not yet acknowledged by every thread: an admin answer waits for them (`settled`). */
  readonly #unsettled = new Set<Promise<void>>();

  private constructor(threads: Thread[]) {
    this.#threads = threads;
  }

  /** Starts the threads; resolves once every app is ready. */
  static async start(options: RequestThreadOptions): Promise<RequestThreads> {
    const started = await Promise.allSettled(Array.from({ length: options.count }, () => startOne(options)));
    const threads = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await new RequestThreads(threads).close();
      throw new Error(`a request thread failed to start: ${failed.reason instanceof Error ? failed.reason.message : String(failed.reason)}`);
    }
    const all = new RequestThreads(threads);
    for (const t of threads) {
      t.worker.on('message', (msg: FromRequestThread) => {
        if (msg.t === 'ack') all.#ack(msg.n);
        else if (msg.t === 'observed') options.onObserved?.(msg);
      });
      t.worker.on('error', (err) => options.logger.error({ err }, 'a request thread failed'));
      t.worker.on('exit', (code) => {
        if (t.closing) return;
        // Its connections are gone with it; new ones go to the threads left.
        t.closing = true;
        all.#detach(t.descriptor);
        t.relay.close();
        all.#lost();
        options.logger.error({ code }, 'a request thread ended unexpectedly');
      });
    }
    return all;
  }

  /** Called by the port that listens with these threads: how to take a thread's app from its acceptor. */
  attach(detach: (descriptor: number) => void): void {
    this.#detach = detach;
  }

  /** The apps' descriptors, for the port's acceptor. */
  get descriptors(): readonly number[] {
    return this.#threads.map((t) => t.descriptor);
  }

  /** Tells every thread; the promise `settled` returns until each applied it. */
  notify(notice: ThreadNotice): void {
    const done = this.#toAll((n) => ({ t: 'notice', n, notice }));
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
    const done = new Promise<void>((resolve) => this.#acks.set(n, { left: live.length, resolve }));
    const msg = make(n);
    for (const t of live) t.worker.postMessage(msg);
    return done;
  }

  #ack(n: number): void {
    const waiting = this.#acks.get(n);
    if (waiting === undefined || --waiting.left > 0) return;
    this.#acks.delete(n);
    waiting.resolve();
  }

  /** A thread was lost: nothing waits for its acknowledgements. */
  #lost(): void {
    for (const [n, waiting] of this.#acks) {
      this.#acks.delete(n);
      waiting.resolve();
    }
  }

  /**
   * Closes every thread: its app is first taken from the acceptor (no new connections), then the thread answers what
   * it has open, closes its sockets and commits what it wrote, and its relay closes. Resolves when every thread ended.
   */
  async close(): Promise<void> {
    await Promise.all(
      this.#threads.map(async (t) => {
        if (t.closing) return;
        t.closing = true;
        this.#detach(t.descriptor);
        const exited = once(t.worker, 'exit');
        t.worker.postMessage({ t: 'close' } satisfies ToRequestThreadControl);
        await exited;
        t.relay.close();
      }),
    );
    this.#lost();
  }
}

async function startOne(options: RequestThreadOptions): Promise<Thread> {
  const { port1, port2 } = new MessageChannel();
  const judging = options.judging?.() ?? null;
  const data: RequestThreadData = { routes: options.routes, relay: port2, graceMs: options.graceMs, judging };
  const worker = startModuleWorker(REQUEST_THREAD, { workerData: data, transferList: judging ? [port2, judging.ledger] : [port2], name: 'request-thread' });
  const relay = new RelayHost(port1, options.dispatch);
  try {
    const [msg] = (await Promise.race([once(worker, 'message'), once(worker, 'exit').then(() => [null])])) as [FromRequestThread | null];
    if (msg?.t !== 'ready') throw new Error('the thread ended before its app was ready');
    return { worker, relay, descriptor: msg.descriptor, closing: false };
  } catch (err) {
    relay.close();
    await worker.terminate();
    throw err;
  }
}
