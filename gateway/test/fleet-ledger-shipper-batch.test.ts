import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerShipper } from '../src/fleet/shipping/ledger-shipper.js';
import { ShipCursorStore } from '../src/fleet/shipping/ship-cursor-store.js';
import { PgLedgerArchive } from '../src/fleet/postgres/pg-ledger-archive.js';
import type { ShippedAck } from '../src/fleet/shipping/shipping-format.js';
import type { CheckedBatch } from '../src/fleet/shipping/verify-batch.js';
import { TempLedger } from './helpers/ledger/temp-ledger.js';
import { poll } from '../../shared/test/helpers/poll.js';
import { MemorySidecarTokens, startArchiveDb, startArchiveServer, type ArchiveDb, type ArchiveServer } from './helpers/fleet/archive-server.js';

// A sidecar's backlog drains in batches of the shipper's default maximum (SHIP_BATCH_MAX, 5,000), each accepted by the
// control plane's default limits (FLEET_LEDGER_BATCH_MAX, FLEET_LEDGER_BODY_LIMIT): real route, real PostgreSQL.
const sizes: number[] = [];

/** The real archive, noting the size of every batch the route hands it. */
class RecordingArchive extends PgLedgerArchive {
  override ingestChecked(batch: CheckedBatch, sidecarId: string): Promise<ShippedAck> {
    sizes.push(batch.entries.length);
    return super.ingestChecked(batch, sidecarId);
  }
}

let db: ArchiveDb;
let cp: ArchiveServer;
const tokens = new MemorySidecarTokens();
let sidecarToken: string;

beforeAll(async () => {
  db = await startArchiveDb('shipper_batch');
  cp = await startArchiveServer(new RecordingArchive(db.pool), tokens);
  sidecarToken = (await tokens.create('sidecars', null)).token;
}, 60_000);
afterAll(async () => {
  await cp?.close();
  await db?.close();
});

describe('ledger shipper batch size', () => {
  it('ships a backlog of 5,001 entries as a batch of 5,000 and one of 1, all stored and verified', async () => {
    const side = new TempLedger({ checkpointEvery: 1_000_000, checkpointIntervalMs: 3_600_000 });
    const shipper = new LedgerShipper({
      ledger: side.ledger,
      cursors: new ShipCursorStore(side.root.openDB({ name: 'ledger_ship_cursors' })),
      instanceId: 'inst-big',
      controlPlaneUrl: cp.url,
      sidecarToken,
      backoffBaseMs: 20,
      backoffMaxMs: 200,
    });
    try {
      for (let done = 0; done < 5001; done += 1000) {
        const n = Math.min(1000, 5001 - done);
        await side.ledger.append('acme', Array.from({ length: n }, (_, i) => ({ event_type: 'prompt', payload: { i: done + i, text: 'a backlog entry' }, metadata: { agent_id: 'agent-1' }, decision: null })));
      }
      shipper.start();
      await poll(() => shipper.status(), { what: 'the backlog to drain', until: (s) => s.pending === 0 && s.chains.length > 0, timeoutMs: 60_000 });
      expect(sizes).toEqual([5000, 1]);
      expect(Number((await db.pool.query("SELECT count(*) AS n FROM ledger_entries WHERE chain_id = 'inst-big/acme'")).rows[0].n)).toBe(5001);
      const [report] = await db.archive.verifyTenant('acme');
      expect(report).toMatchObject({ chain_id: 'inst-big/acme', ok: true, checked: 5001 });
    } finally {
      await shipper.close();
      await side.dispose();
    }
  }, 90_000);
});
