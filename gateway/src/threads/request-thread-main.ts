import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { App, type TemplatedApp } from 'uWebSockets.js';
import { relayRoutes } from './relay/relay-routes.js';
import type { RelayedRoute } from './relay/relay-protocol.js';
import type { FromRequestThread, ToRequestThreadControl } from './request-thread-protocol.js';
import type { JudgingSetup, JudgingThread } from './request-thread-gateway.js';

/** What a request thread is started with (workerData). */
export interface RequestThreadData {
  readonly routes: readonly RelayedRoute[];
  readonly relay: MessagePort;
  readonly graceMs: number;
  /** Set when the thread judges requests itself (the judged routes); null: it relays every request. */
  readonly judging: JudgingSetup | null;
}

/**
 * A request thread: its own uWS app, to which the main thread's acceptor hands connections, serving the main thread's
 * routes. It answers the judged routes itself when told to (request-thread-gateway.ts) and relays every other request
 * to the main thread (relay/), which answers it with its own handlers.
 */
const { routes, relay, graceMs, judging: setup } = workerData as RequestThreadData;
const control = parentPort as MessagePort;
const post = (msg: FromRequestThread): void => control.postMessage(msg);
let judging: JudgingThread | null = null;
let app: TemplatedApp;
let openRequests: () => number;
if (setup !== null) {
  // Imported only here: a relaying thread starts small.
  judging = (await import('./request-thread-gateway.js')).startJudgingThread(setup, routes, relay, post);
  app = judging.app;
  openRequests = judging.openRequests;
} else {
  app = App();
  openRequests = relayRoutes(app, routes, relay);
}
// uWS's types do not name the descriptor: a number the acceptor on the main thread takes.
post({ t: 'ready', descriptor: (app as unknown as { getDescriptor(): number }).getDescriptor() });

control.on('message', (msg: ToRequestThreadControl) => {
  if (msg.t === 'notice') {
    judging?.apply(msg.notice);
    post({ t: 'ack', n: msg.n });
  } else if (msg.t === 'barrier') {
    void (judging?.barrier() ?? Promise.resolve()).then(() => post({ t: 'ack', n: msg.n }));
  } else close();
});

/**
 * The acceptor hands this app no more connections (the main thread removed it first); requests still open are
 * answered (within the grace), then every socket is closed, what this thread wrote is committed, and the thread ends.
 */
function close(): void {
  const started = Date.now();
  const finish = (): void => {
    if (openRequests() > 0 && Date.now() - started < graceMs) {
      setTimeout(finish, 5);
      return;
    }
    app.close();
    void (judging?.close() ?? Promise.resolve()).finally(() => {
      relay.close();
      post({ t: 'closed' });
      control.close();
    });
  };
  finish();
}
