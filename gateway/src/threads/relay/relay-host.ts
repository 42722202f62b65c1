import type { MessagePort } from 'node:worker_threads';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { RemoteRequest } from './remote-request.js';
import { RemoteResponse } from './remote-response.js';
import type { ToOwner, ToRequestThread } from './relay-protocol.js';

/** Runs route `route`'s uWS handler (the one the main thread's own app runs) on a relayed request. */
export type RelayedDispatch = (route: number, res: HttpResponse, req: HttpRequest) => void;

/**
 * The main thread's end of one request thread's relay: each request the thread hands over runs through the main
 * thread's own route handlers, on a RemoteRequest and a RemoteResponse, so it is served exactly as a request on one of
 * the main thread's connections would be.
 */
export class RelayHost {
  readonly #requests = new Map<number, RemoteResponse>();
  readonly #send: (msg: ToRequestThread) => void;
  readonly #forget = (id: number): void => {
    this.#requests.delete(id);
  };

  constructor(
    private readonly port: MessagePort,
    private readonly dispatch: RelayedDispatch,
  ) {
    this.#send = (msg) => port.postMessage(msg);
    port.on('message', (msg: ToOwner) => this.#receive(msg));
  }

  /** Requests handed over and not yet answered. */
  get open(): number {
    return this.#requests.size;
  }

  #receive(msg: ToOwner): void {
    if (msg.t === 'head') {
      const res = new RemoteResponse(msg.id, this.#send, msg.remote, this.#forget);
      this.#requests.set(msg.id, res);
      this.dispatch(msg.route, res as unknown as HttpResponse, new RemoteRequest(msg) as unknown as HttpRequest);
    } else if (msg.t === 'data') this.#requests.get(msg.id)?.data(msg.chunk, msg.last);
    else if (msg.t === 'aborted') this.#requests.get(msg.id)?.abort();
    else this.#requests.get(msg.id)?.drained();
  }

  /** Stops listening: the request thread is closing. */
  close(): void {
    this.port.close();
    for (const res of [...this.#requests.values()]) res.abort();
  }
}
