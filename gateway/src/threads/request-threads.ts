import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { once } from 'node:events';
import type { Logger } from '@aduana/shared';
import { startModuleWorker } from '../platform/start-module-worker.js';
import { RelayHost, type RelayedDispatch } from './relay/relay-host.js';
import type { RelayedRoute } from './relay/relay-protocol.js';
import type { FromRequestThread, ThreadNotice, ToRequestThreadControl } from './request-thread-protocol.js';
import type { RequestThreadData } from './request-thread-main.js';
import type { JudgingSetup } from './request-thread-gateway.js';

const REQUEST_THREAD = new URL('./request-thread-main.js', import.meta.url);

interface Thread {
  readonly worker: Worker;
  /** The main thread's end of the relay's channel (a RelayHost serves it once the routes are known). */
  readonly port: MessagePort;
  relay: RelayHost | null;
  descriptor: number;
  /** Set once the thread was told to close (or was lost): its exit is then expected. */
  closing: boolean;
}

export interface RequestThreadOptions {
  /** How many threads (GATEWAY_THREADS − 1: the main thread serves too). */
  readonly count: number;
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
 * handlers (relay/). Launched early (they load their code while the main thread builds the rest), served the routes
 * once they are registered, closed after the main thread's app drained.
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

  /** Starts the threads loading; `serve` gives them the routes. */
  static launch(options: RequestThreadOptions): RequestThreads {
    const all = new RequestThreads([]);
    for (let i = 0; i < options.count; i++) {
      const { port1, port2 } = new MessageChannel();
      const judging = options.judging?.() ?? null;
      const data: RequestThreadData = { relay: port2, graceMs: options.graceMs, judging };
      const worker = startModuleWorker(REQUEST_THREAD, { workerData: data, transferList: judging ? [port2, judging.ledger] : [port2], name: 'request-thread' });
      // Until it serves, a thread does not keep the process alive: a start-up that fails before then can end.
      worker.unref();
      const t: Thread = { worker, port: port1, relay: null, descriptor: -1, closing: false };
      all.#threads.push(t);
      worker.on('message', (msg: FromRequestThread) => {
        if (msg.t === 'ack') all.#ack(msg.n);
        else if (msg.t === 'observed') options.onObserved?.(msg);
        else if (msg.t === 'ready') t.descriptor = msg.descriptor;
      });
      worker.on('error', (err) => options.logger.error({ err }, 'a request thread failed'));
      worker.on('exit', (code) => {
        if (t.closing) return;
        // Its connections are gone with it; new ones go to the threads left.
        t.closing = true;
        all.#detach(t.descriptor);
        t.relay?.close();
        port1.close();
        all.#lost();
        options.logger.error({ code }, 'a request thread ended unexpectedly');
      });
    }
    return all;
  }

  /**
   * Gives every thread the port's routes, in the order the main thread registered them, and how to run one on a
   * relayed request; resolves once every thread's app is ready, rejects if one ended instead.
   */
  async serve(routes: readonly RelayedRoute[], dispatch: RelayedDispatch): Promise<void> {
    await Promise.all(
      this.#threads.map(async (t) => {
        t.relay = new RelayHost(t.port, dispatch);
        const ready = new Promise<void>((resolve, reject) => {
          const onMessage = (msg: FromRequestThread) => {
            if (msg.t !== 'ready') return;
            t.worker.off('message', onMessage);
            resolve();
          };
          t.worker.on('message', onMessage);
          t.worker.once('exit', () => reject(new Error('a request thread ended before its app was ready')));
        });
        t.worker.ref();
        t.worker.postMessage({ t: 'routes', routes } satisfies ToRequestThreadControl);
        await ready;
      }),
    );
  }

  /** Called by the port that listens with these threads: how to take a thread's app from its acceptor. */
  attach(detach: (descriptor: number) => void): void {
    this.#detach = detach;
  }

  /** The apps' descriptors, for the port's acceptor; -1 for a thread not ready yet. */
  get descriptors(): readonly number[] {
    return this.#threads.filter((t) => !t.closing).map((t) => t.descriptor);
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
        // Waited for: the process must not end (its loop empty, a thread not yet serving is unref'd) meanwhile.
        t.worker.ref();
        const exited = once(t.worker, 'exit');
        t.worker.postMessage({ t: 'close' } satisfies ToRequestThreadControl);
        await exited;
        t.relay?.close();
        t.port.close();
      }),
    );
    this.#lost();
  }
}
