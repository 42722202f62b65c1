import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { FromRequestThread, ToRequestThreadControl } from './request-thread-protocol.js';
import type { JudgingSetup, JudgingThread } from './request-thread-gateway.js';

/** What a request thread is started with (workerData). */
export interface RequestThreadData {
  readonly graceMs: number;
  readonly judging: JudgingSetup;
}

/**
 * A request thread: its own uWS app serving the agents' calls (request-thread-gateway.ts), to which the agents'
 * port's acceptor on the main thread hands connections. No request is ever handed to another thread: every route it
 * has, it answers. Started while the main thread builds the rest, it builds its app meanwhile.
 */
const { graceMs, judging: setup } = workerData as RequestThreadData;
const control = parentPort as MessagePort;
const post = (msg: FromRequestThread): void => control.postMessage(msg);
const building: Promise<JudgingThread> = import('./request-thread-gateway.js').then((m) => m.startJudgingThread(setup, post));
let judging: JudgingThread | null = null;
const ack = (n: number) => (): void => post({ t: 'ack', n });
let closing = false;

building.then(
  (j) => {
    judging = j;
    // Told to close while it was built (the gateway's start failed): it serves nothing.
    if (closing) return;
    // uWS's types do not name the descriptor: a number the acceptor on the main thread takes.
    post({ t: 'ready', descriptor: (j.app as unknown as { getDescriptor(): number }).getDescriptor(), routes: j.routes });
  },
  (err: unknown) => post({ t: 'failed', message: err instanceof Error ? err.message : String(err) }),
);

control.on('message', (msg: ToRequestThreadControl) => {
  // A notice or barrier that arrives while the thread is built is answered once it is, in the order they came.
  // A thread that could not be built acknowledges too: the main thread was told it failed and waits for nothing.
  if (msg.t === 'notice') void building.then((j) => j.apply(msg.notice)).then(ack(msg.n), ack(msg.n));
  else if (msg.t === 'barrier') void building.then((j) => j.barrier()).then(ack(msg.n), ack(msg.n));
  else close();
});

/** The thread's last act: its port closes, and with nothing left to run it ends. */
function ended(): void {
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
  if (judging === null) {
    void building.then((j) => j.close(), () => undefined).finally(ended);
    return;
  }
  const j = judging;
  const finish = (): void => {
    if (j.openRequests() > 0 && Date.now() - started < graceMs) {
      setTimeout(finish, 5);
      return;
    }
    j.app.close();
    void j.close().finally(ended);
  };
  finish();
}
