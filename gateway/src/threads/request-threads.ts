import { MessageChannel, type Worker } from 'node:worker_threads';
import { once } from 'node:events';
import type { Logger } from '@aduana/shared';
import { startModuleWorker } from './start-module-worker.js';
import { RelayHost, type RelayedDispatch } from './relay/relay-host.js';
import type { RelayedRoute } from './relay/relay-protocol.js';
import type { FromRequestThread, ToRequestThreadControl } from './request-thread-protocol.js';

const REQUEST_THREAD = new URL('./request-thread-main.js', import.meta.url);

interface Thread {
  readonly worker: Worker;
  readonly relay: RelayHost;
  readonly descriptor: number;
  /** Set once the thread was told to close (or was lost): its exit is then expected. */
  closing: boolean;
}

/**
 * The request threads of one port (GATEWAY_THREADS − 1 of them: the main thread serves too), each with its own uWS
 * app to which the port's acceptor hands connections. Each relays its requests to the main thread's route handlers
 * (relay/). Started before the port listens; closed after the main thread's app drained.
 */
export class RequestThreads {
  readonly #threads: Thread[];
  /** Takes a thread's app from the port's acceptor (set by the port when it listens). */
  #detach: (descriptor: number) => void = () => {};

  private constructor(threads: Thread[]) {
    this.#threads = threads;
  }

  /** Starts `count` threads serving `routes`, whose relayed requests `dispatch` runs; resolves once every app is ready. */
  static async start(count: number, routes: readonly RelayedRoute[], dispatch: RelayedDispatch, logger: Logger, graceMs: number): Promise<RequestThreads> {
    const started = await Promise.allSettled(Array.from({ length: count }, () => startOne(routes, dispatch, graceMs)));
    const threads = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await new RequestThreads(threads).close();
      throw new Error(`a request thread failed to start: ${failed.reason instanceof Error ? failed.reason.message : String(failed.reason)}`);
    }
    const all = new RequestThreads(threads);
    for (const t of threads) {
      t.worker.on('error', (err) => logger.error({ err }, 'a request thread failed'));
      t.worker.on('exit', (code) => {
        if (t.closing) return;
        // Its connections are gone with it; new ones go to the threads left.
        t.closing = true;
        all.#detach(t.descriptor);
        t.relay.close();
        logger.error({ code }, 'a request thread ended unexpectedly');
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

  /** Requests relayed to the main thread and not yet answered, all threads together. */
  get relayedOpen(): number {
    let n = 0;
    for (const t of this.#threads) n += t.relay.open;
    return n;
  }

  /**
   * Closes every thread: its app is first taken from the acceptor (no new connections), then the thread answers what
   * it has open and closes its sockets, and its relay closes. Resolves when every thread ended.
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
  }
}

async function startOne(routes: readonly RelayedRoute[], dispatch: RelayedDispatch, graceMs: number): Promise<Thread> {
  const { port1, port2 } = new MessageChannel();
  const worker = startModuleWorker(REQUEST_THREAD, { workerData: { routes, relay: port2, graceMs }, transferList: [port2] });
  const relay = new RelayHost(port1, dispatch);
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
