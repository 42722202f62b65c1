import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { App, type TemplatedApp } from 'uWebSockets.js';
import { relayRoutes } from './relay/relay-routes.js';
import type { RelayedRoute } from './relay/relay-protocol.js';
import type { FromRequestThread, ToRequestThreadControl } from './request-thread-protocol.js';
import type { JudgingSetup, JudgingThread } from './request-thread-gateway.js';

/** What a request thread is started with (workerData); the routes follow in a message. */
export interface RequestThreadData {
  readonly relay: MessagePort;
  readonly graceMs: number;
  /** Set when the thread judges requests itself (decide and the proxy's calls); null: it relays every request. */
  readonly judging: JudgingSetup | null;
}

/**
 * A request thread: its own uWS app, to which the main thread's acceptor hands connections, serving the main thread's
 * routes. It answers the judged routes itself when told to (request-thread-gateway.ts) and relays every other request
 * to the main thread (relay/), which answers it with its own handlers. Started while the main thread builds the rest,
 * it loads its code meanwhile and builds its app when the routes arrive.
 */
const { relay, graceMs, judging: setup } = workerData as RequestThreadData;
const control = parentPort as MessagePort;
const post = (msg: FromRequestThread): void => control.postMessage(msg);
// Built at once, while the main thread builds the rest; only the relayed routes wait for the routes.
const building = setup !== null ? import('./request-thread-gateway.js').then((m) => m.startJudgingThread(setup, relay, post)) : null;
let judging: JudgingThread | null = null;
let app: TemplatedApp | null = null;
let openRequests: () => number = () => 0;
let closing = false;

control.on('message', (msg: ToRequestThreadControl) => {
  if (msg.t === 'routes') void serve(msg.routes);
  // A notice or barrier that arrives while the thread is built is answered once it is, in the order they came.
  else if (msg.t === 'notice') {
    void built().then((j) => {
      j?.apply(msg.notice);
      post({ t: 'ack', n: msg.n });
    });
  } else if (msg.t === 'barrier') {
    void built()
      .then((j) => j?.barrier())
      .then(() => post({ t: 'ack', n: msg.n }));
  } else close();
});

/** The judging thread once built (null for a relaying one). */
function built(): Promise<JudgingThread | null> {
  return building ?? Promise.resolve(null);
}

async function serve(routes: readonly RelayedRoute[]): Promise<void> {
  if (building !== null) {
    judging = await building;
    // Told to close while it was built (the gateway's start failed): it serves nothing.
    if (closing) return;
    judging.relay(routes);
    app = judging.app;
    openRequests = judging.openRequests;
  } else {
    app = App();
    openRequests = relayRoutes(app, routes, relay);
  }
  // uWS's types do not name the descriptor: a number the acceptor on the main thread takes.
  post({ t: 'ready', descriptor: (app as unknown as { getDescriptor(): number }).getDescriptor() });
}

/** The thread's last act: its ports close, and with nothing left to run it ends. */
function ended(): void {
  relay.close();
  post({ t: 'closed' });
  control.close();
}

/**
 * The acceptor hands this app no more connections (the main thread removed it first); requests still open are
 * answered (within the grace), then every socket is closed, what this thread wrote is committed, and the thread ends.
 */
function close(): void {
  closing = true;
  const started = Date.now();
  // Still being built: closed once built (its ledger, store and pools).
  if (judging === null && building !== null) {
    void building.then((j) => j.close()).finally(ended);
    return;
  }
  const finish = (): void => {
    if (openRequests() > 0 && Date.now() - started < graceMs) {
      setTimeout(finish, 5);
      return;
    }
    app?.close();
    void (judging?.close() ?? Promise.resolve()).finally(ended);
  };
  finish();
}
