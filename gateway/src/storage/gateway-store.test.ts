import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore } from './gateway-store.js';

const RECORD_DEFINITION = [0xd4, 0x72]; // msgpack fixext 1, type "r": a record that carries its key names

describe('gateway store encoding', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes plain maps, and reads the records earlier builds wrote', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-store-'));
    const agent = { status: 'active', lastSeen: 1_795_675_230_983, policyPack: null, labels: { team: 'crm' } };
    // An earlier build: lmdb-js's default encoding for a named database.
    const before = open({ path: join(dir, 'gateway'), maxDbs: 48, compression: false });
    const old = before.openDB({ name: 'agents' });
    await old.put(['t1', 'old-agent'], agent);
    expect([...(old.getBinary(['t1', 'old-agent']) as Buffer).subarray(0, 2)]).toEqual(RECORD_DEFINITION);
    await before.close();

    const store = openGatewayStore(dir);
    try {
      expect(store.agents.get(['t1', 'old-agent'])).toEqual(agent);
      await store.agents.put(['t1', 'new-agent'], agent);
      const bytes = store.agents.getBinary(['t1', 'new-agent']) as Buffer;
      // A map 16 (lmdb-js writes every map with a two-byte length) of 4 entries, then the 6-character key "status".
      expect([...bytes.subarray(0, 4)]).toEqual([0xde, 0x00, 0x04, 0xa6]);
      expect(store.agents.get(['t1', 'new-agent'])).toEqual(agent);
    } finally {
      await store.close();
    }
  });
});
