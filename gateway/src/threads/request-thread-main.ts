import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { App } from 'uWebSockets.js';
import { relayRoutes } from './relay/relay-routes.js';
import type { RelayedRoute } from './relay/relay-protocol.js';
import type { FromRequestThread, ToRequestThreadControl } from './request-thread-protocol.js';

/**
 * A request thread: its own uWS app, to which the main thread's acceptor hands connections, serving the main thread's
 * routes. It relays each request to the main thread (relay/), which answers it with its own handlers.
 */
const { routes, relay, graceMs } = workerData as { routes: RelayedRoute[]; relay: MessagePort; graceMs: number };
const control = parentPort as MessagePort;
const app = App();
const openRequests = relayRoutes(app, routes, relay);
// uWS's types do not name the descriptor: a number the acceptor on the main thread takes.
const descriptor = (app as unknown as { getDescriptor(): number }).getDescriptor();
control.postMessage({ t: 'ready', descriptor } satisfies FromRequestThread);

control.on('message', (msg: ToRequestThreadControl) => {
  if (msg.t !== 'close') return;
  // The acceptor hands this app no more connections (the main thread removed it first); requests still open are
  // answered (within the grace), then every socket is closed and the thread ends.
  const started = Date.now();
  const finish = (): void => {
    if (openRequests() > 0 && Date.now() - started < graceMs) {
      setTimeout(finish, 5);
      return;
    }
    app.close();
    relay.close();
    control.postMessage({ t: 'closed' } satisfies FromRequestThread);
    control.close();
  };
  finish();
});
