// Child process of crash.test.ts: appends under steady load from many concurrent callers (single appends, batches,
// group-committed proxy entries) and prints every acknowledged entry as "seq:hash" once its promise resolved, i.e.
// once the ledger said it is on disk. The test SIGKILLs it mid-load and checks every printed entry survived.
import { openStore } from '@aduana/shared';
import { Ledger, type LedgerEntry, type LedgerInput } from '../../../src/ledger/index.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: crash-child.ts DATA_DIR');
const ledger = Ledger.open(openStore(dir, 'gateway'), { keyDir: dir, checkpointEvery: 200, checkpointIntervalMs: 100 });
let n = 0;

function input(worker: number): LedgerInput {
  n++;
  return { event_type: 'load', payload: { n, worker }, metadata: { agent_id: `agent-${worker % 4}` }, decision: null };
}

function ack(entries: LedgerEntry[]): void {
  // Pipes are written synchronously on Linux: once write returns, the parent can read the line even if we die next.
  process.stdout.write(`${entries.map((e) => `${e.seq}:${e.hash}`).join(' ')}\n`);
}

async function worker(id: number): Promise<never> {
  for (;;) {
    if (id < 48) ack(await ledger.append('crash', [input(id)]));
    else if (id < 56) ack(await ledger.append('crash', Array.from({ length: 10 }, () => input(id))));
    else ack([await ledger.appendGrouped('crash', input(id))]);
  }
}

process.stdout.write('ready\n');
for (let id = 0; id < 64; id++) void worker(id);
