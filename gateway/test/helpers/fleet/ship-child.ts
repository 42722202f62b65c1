// Child process of fleet-ledger-shipper.test.ts: a sidecar's ledger and shipper in their own process. In `load`
// mode it appends events one after another and prints each acknowledged entry as "seq:hash" once the ledger said it
// is on disk (what a client's 200 means), while the shipper sends them to the control plane; the test SIGKILLs it.
// In `drain` mode it only ships, and prints "drained" once the control plane acknowledged the whole ledger.
import { openStore } from '@aduana/shared';
import { Ledger } from '../../../src/ledger/index.js';
import { LedgerShipper } from '../../../src/fleet/shipping/ledger-shipper.js';
import { ShipCursorStore } from '../../../src/fleet/shipping/ship-cursor-store.js';

const [mode, dir, controlPlaneUrl, sidecarToken, instanceId] = process.argv.slice(2);
if (!mode || !dir || !controlPlaneUrl || !sidecarToken || !instanceId) throw new Error('usage: ship-child.ts load|drain DATA_DIR URL TOKEN INSTANCE');
const root = openStore(dir, 'gateway');
const ledger = Ledger.open(root, { keyDir: dir, checkpointEvery: 50, checkpointIntervalMs: 200 });
const cursors = new ShipCursorStore(root.openDB({ name: 'ledger_ship_cursors' }));
const shipper = new LedgerShipper({ ledger, cursors, instanceId, controlPlaneUrl, sidecarToken, batchMax: 64, intervalMs: 50, backoffBaseMs: 20, backoffMaxMs: 200 });
shipper.start();
process.stdout.write('ready\n');

if (mode === 'load') {
  for (let n = 0; ; n++) {
    const [entry] = await ledger.append('acme', [{ event_type: 'load', payload: { n }, metadata: { agent_id: 'agent-1' }, decision: null }]);
    process.stdout.write(`${entry!.seq}:${entry!.hash}\n`);
  }
} else {
  const timer = setInterval(() => {
    const { pending, chains } = shipper.status();
    if (pending === 0 && chains.length > 0) {
      clearInterval(timer);
      process.stdout.write('drained\n');
    }
  }, 20);
}
