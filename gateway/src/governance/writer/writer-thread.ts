import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openGatewayStore } from '../../storage/gateway-store.js';
import { TenantStore } from '../../identity/tenants/tenant-store.js';
import { resolveStoredDecision } from '../decisions/decision-store.js';
import { OrderedDecisionWrites } from '../decisions/decision-write-order.js';
import { Ledger } from '../../ledger/ledger.js';
import { writerLedgerOptions } from './writer-ledger-options.js';
import { LedgerError } from '../../ledger/errors.js';
import type { AnchorStats } from '../../ledger/merkle/anchor-queue.js';
import type { ChainInput } from '../../ledger/log/entry-input.js';
import type { FromWriter, Reply, ToWriter, WireError, WriterCallName, WriterCalls, WriterSettings, WriterStarted } from './writer-protocol.js';

/**
 * The ledger's writer thread: the one owner, in this process, of every tenant's chain head, the decision index,
 * checkpoints, time-stamping and retention. Request threads validate and canonicalise entries and hand them here
 * (writer-client.ts); this thread chains them with the same Ledger the CLI uses, in the same LMDB environment (lmdb-js
 * shares one native environment per path across a process's threads), and answers once they are flushed.
 */
const settings = workerData as WriterSettings;

/**
 * A thread that writes here: the main thread (on the thread's own port: it started the writer, closes it, and is
 * told of durable chains, background errors and the time-stamping sender), or a request thread on a port the main
 * thread attached. Each is answered on its own port.
 */
interface Client {
  readonly port: MessagePort;
  readonly replies: Reply[];
}
const main: Client = { port: parentPort!, replies: [] };
/** Clients with answers to send at the end of this turn. */
const answering = new Set<Client>();
const attached = new Set<Client>();

const store = openGatewayStore(settings.dataDir);
const tenants = new TenantStore(store);
const decisions = new OrderedDecisionWrites(store, settings.decisionHoldMs);
const durable = new Set<string>();
const errors: FromWriter['errors'] = [];
let flushScheduled = false;
let lastAnchor = '';
/** The time-stamping sender made a request since its state was last looked at (reading it counts the queue). */
let anchorMoved = true;
/** Set when close() starts: the ledger's state is no longer read. */
let closing = false;
/** Set once close() finished: the port closes after that answer went out, and the thread ends. */
let closed = false;

const ledger = Ledger.open(
  store.root,
  writerLedgerOptions(settings, tenants, {
    // The HTTP client (in the shared index) only where checkpoints are time-stamped: the thread starts smaller without it.
    dispatcher: settings.anchoring ? new (await import('@aduana/shared')).Egress(settings.anchoring.egress).dispatcher : undefined,
    onError: (err, context) => {
      errors.push({ context, message: err instanceof Error ? err.message : String(err), ...(err instanceof Error && err.stack ? { stack: err.stack } : {}) });
      scheduleFlush();
    },
    onAnchorProgress: () => {
      anchorMoved = true;
      scheduleFlush();
    },
  }),
);
ledger.setDurableListener((tenantId) => {
  durable.add(tenantId);
  scheduleFlush();
});

function scheduleFlush(): void {
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flush);
}

/** What settled in this turn, as one message to each client it concerns. */
function flush(): void {
  flushScheduled = false;
  for (const client of answering) if (client !== main) client.port.postMessage({ replies: client.replies.splice(0), durable: [], errors: [] } satisfies FromWriter);
  answering.clear();
  const message: { -readonly [K in keyof FromWriter]: FromWriter[K] } = { replies: main.replies.splice(0), durable: [...durable], errors: errors.splice(0) };
  durable.clear();
  if (anchorMoved && !closing) {
    anchorMoved = false;
    const anchor = anchorChange();
    if (anchor !== undefined) message.anchor = anchor;
  }
  main.port.postMessage(message);
  if (closed) {
    for (const client of attached) client.port.close();
    main.port.close();
  }
}

/** The sender's counters when they changed since last reported (`pending` is read from the store by whoever asks). */
function anchorChange(): AnchorStats | null | undefined {
  const stats = ledger.anchorStats;
  const text = stats === null ? '' : `${stats.status}/${stats.anchored}/${stats.failed_attempts}/${stats.last_error_at}`;
  if (text === lastAnchor) return undefined;
  lastAnchor = text;
  return stats === null ? null : { ...stats };
}

function reply(client: Client, r: Reply): void {
  client.replies.push(r);
  if (client !== main) answering.add(client);
  scheduleFlush();
}

function wireError(err: unknown): WireError {
  if (err instanceof LedgerError) return { code: err.code, message: err.message, index: err.index };
  return { code: null, message: err instanceof Error ? err.message : String(err), index: null };
}

/** Runs one write and answers it by id: its value, or its failure, thrown or rejected (never the thread's end). */
function answer(client: Client, id: number, work: () => unknown): void {
  let result: Promise<unknown>;
  try {
    result = Promise.resolve(work());
  } catch (err) {
    reply(client, { id, error: wireError(err) });
    return;
  }
  result.then(
    (value) => reply(client, { id, value }),
    (err: unknown) => reply(client, { id, error: wireError(err) }),
  );
}

const calls: { [K in WriterCallName]: (...args: WriterCalls[K]) => unknown } = {
  checkpointNow: (tenantId) => ledger.checkpointNow(tenantId),
  checkpointAt: (tenantId, size) => ledger.checkpointForExport(tenantId, size),
  markExported: (tenantId, size) => ledger.markExportedThrough(tenantId, size),
  prune: (tenantId, limits) => ledger.prune(tenantId, limits),
  resolveDecision: (tenantId, id, resolution) => resolveStoredDecision(store, tenantId, id, resolution),
  close: async () => {
    closing = true;
    await ledger.close();
    await store.close();
    closed = true;
  },
};

function handle(client: Client, op: ToWriter): void {
  switch (op.op) {
    case 'append':
      answer(client, op.id, () => {
        const inputs: ChainInput[] = op.inputs.map((i) => ({ prefix: Buffer.from(i.text), eventType: i.eventType, agentId: i.agentId, countKey: i.countKey }));
        return ledger.commitPrepared(op.tenant, inputs, op.window);
      });
      return;
    case 'decision':
      answer(client, op.id, () => decisions.write(op.record));
      return;
    case 'put-held':
      decisions.flush();
      return;
    case 'call':
      // A resolve reads the index, and a close flushes it: the records held for ordering go first.
      decisions.flush();
      // Only the thread that started the writer closes it.
      if (op.method === 'close' && client !== main) return reply(client, { id: op.id, error: wireError(new Error('only the main thread closes the writer')) });
      answer(client, op.id, () => (calls[op.method] as (...args: unknown[]) => unknown)(...op.args));
      return;
  }
}

function receive(client: Client, ops: ToWriter[]): void {
  // Request threads write the rest of the environment (tenants' plans, which anchoring reads): see their commits.
  store.root.resetReadTxn();
  for (const op of ops) handle(client, op);
}

main.port.on('message', (msg: ToWriter[] | { attach: MessagePort }) => {
  if (Array.isArray(msg)) return receive(main, msg);
  const client: Client = { port: msg.attach, replies: [] };
  attached.add(client);
  client.port.on('message', (ops: ToWriter[]) => receive(client, ops));
  client.port.on('close', () => attached.delete(client));
});

anchorChange();
const started: WriterStarted = { ready: true, anchor: ledger.anchorStats };
main.port.postMessage(started);
