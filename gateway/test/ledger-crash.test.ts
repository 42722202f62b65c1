import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, startCliService, waitExit } from './helpers/run-cli.js';
import { call } from './helpers/start-test-gateway.js';

const VERIFIER = fileURLToPath(new URL('../../scripts/verify-ledger-export.mjs', import.meta.url));
let dataDir: string;
let env: Record<string, string>;

beforeAll(() => {
  assertBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-crash-'));
  env = { DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'silent', ADUANA_QUIET_BOOTSTRAP: 'true', CHECKPOINT_EVERY: '100', CHECKPOINT_INTERVAL_S: '1' };
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const READY = /API and proxy on (http:\/\/[\d.:]+)/;

describe('crash safety (SIGKILL under load)', () => {
  it('every event that got a 2xx survives; seq has no gaps; chain, checkpoints and an offline export verify', async () => {
    await runCli(['tenant', 'create', 'crash', '--plan', 'enterprise'], env);
    const token = (await runCli(['token', 'create', '--tenant', 'crash', '--role', 'operator'], env)).stdout.trim();
    const { child, match } = await startCliService(['gateway'], env, READY);
    const url = match[1] as string;
    const pool = new Pool(url, { connections: 16 });
    const acked = new Set<string>();
    let stop = false;
    let uid = 0;
    const worker = async (w: number) => {
      while (!stop) {
        const batch = w % 4 === 0;
        const ids = batch ? Array.from({ length: 10 }, () => `u${uid++}`) : [`u${uid++}`];
        const body = batch
          ? { events: ids.map((id) => ({ event_type: 'load.batch', payload: { uid: id }, metadata: { agent_id: `w${w}` } })) }
          : { event_type: 'load.single', payload: { uid: ids[0] }, metadata: { agent_id: `w${w}` } };
        try {
          const res = await pool.request({ method: 'POST', path: batch ? '/v1/events/ingest/batch' : '/v1/events', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
          await res.body.text();
          if (res.statusCode === 200) for (const id of ids) acked.add(id);
        } catch {
          return; // the gateway is gone
        }
      }
    };
    const workers = Array.from({ length: 16 }, (_, w) => worker(w));
    // Kill once a good number of events are acknowledged, while requests are still in flight.
    await expect.poll(() => acked.size, { timeout: 20_000, interval: 20 }).toBeGreaterThan(1500);
    child.kill('SIGKILL');
    expect(await waitExit(child)).toBeNull();
    stop = true;
    await Promise.all(workers);
    await pool.close();
    expect(acked.size).toBeGreaterThan(1500);

    const again = await startCliService(['gateway'], env, READY);
    const url2 = again.match[1] as string;
    try {
      const found = new Set<string>();
      const seqs: number[] = [];
      let cursor: string | null = null;
      let total = -1;
      do {
        const r = await call(url2, 'GET', `/v1/events?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
        expect(r.status).toBe(200);
        total = r.body.total;
        for (const e of r.body.events) {
          seqs.push(e.seq);
          found.add(e.payload.uid);
        }
        cursor = r.body.cursor;
      } while (cursor !== null);
      const lost = [...acked].filter((id) => !found.has(id));
      expect(lost).toEqual([]);
      expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      const v = await call(url2, 'GET', '/v1/events/verify', { token });
      expect(v.body).toMatchObject({ ok: true, firstBrokenSeq: null, checked: total });
      expect(v.body.checkpointsChecked).toBeGreaterThan(0);
      // Appending after the restart continues the same chain.
      const next = await call(url2, 'POST', '/v1/events', { token, body: { event_type: 'after.restart', payload: {} } });
      expect(next.status).toBe(200);
      expect((await call(url2, 'GET', `/v1/events/${total + 1}`, { token })).body.event_type).toBe('after.restart');
    } finally {
      again.child.kill('SIGTERM');
      expect(await waitExit(again.child)).toBe(0);
    }

    // Offline: the CLI's verify, and an export checked by the standalone script.
    const verify = await runCli(['ledger', 'verify', '--tenant', 'crash'], env);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^crash\tok\t\d+ entries/);
    const file = join(dataDir, 'crash.jsonl');
    expect((await runCli(['ledger', 'export', '--tenant', 'crash', '--out', file], env)).code).toBe(0);
    const { stdout } = await promisify(execFile)(process.execPath, [VERIFIER, file]);
    expect(stdout).toMatch(/verified|ok/i);
  });
});
