import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { openGatewayStore, type GatewayStore } from '../../storage/gateway-store.js';
import type { LogEntry } from '../../telemetry/telemetry-records.js';
import { TelemetryShipper, type TelemetryShipperOptions } from './telemetry-shipper.js';

// The sidecar's telemetry queue is bounded in bytes as well as items (FLEET_TELEMETRY_QUEUE_MAX_BYTES): with its
// control plane away, 16 KiB log messages fill memory long before 100,000 items would. Real LMDB; the control plane
// is a loopback port nobody listens on.
let dir: string;
let store: GatewayStore;
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A loopback port that was free a moment ago and is closed now: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function shipper(port: number, over: Partial<TelemetryShipperOptions> = {}): TelemetryShipper {
  return new TelemetryShipper({
    fleet: store.fleet,
    instanceId: 'inst-q',
    controlPlaneUrl: `http://127.0.0.1:${port}`,
    sidecarToken: 'adu_sct_x',
    intervalMs: 3_600_000,
    batchMax: 1000,
    bodyLimit: 16 * 1024 * 1024,
    queueMax: 100_000,
    queueMaxBytes: 100 * 1024,
    backoffBaseMs: 1000,
    backoffMaxMs: 1000,
    timeoutMs: 1000,
    logger: createLogger('test', { level: 'silent' }),
    ...over,
  });
}

const log = (i: number): LogEntry => ({ id: `log_${i}`, timestamp: new Date(0).toISOString(), level: 'info', message: `${i} ${'x'.repeat(16_000)}`, agentId: 'a', traceId: '', attributes: {} });

describe('the sidecar telemetry queue bound in bytes', () => {
  it('drops and counts what would pass the byte bound, holds at most that many bytes, and keeps them across a graceful restart', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-tq-'));
    store = openGatewayStore(dir);
    const port = await closedPort();
    const s = shipper(port);
    for (let i = 0; i < 20; i++) s.onLog('acme', log(i));
    const held = s.status();
    // Each item is about 16 KB of JSON: six fit under 100 KiB, the seventh would not.
    expect(held.queued).toBe(6);
    expect(held.queued_bytes).toBeGreaterThan(6 * 16_000);
    expect(held.queued_bytes).toBeLessThanOrEqual(100 * 1024);
    expect(held.dropped).toEqual({ queue_full: 14, rejected: 0 });
    await expect(s.shipOnce()).rejects.toThrow();
    await s.close();

    // The six went out as a batch the control plane never answered: kept as that batch, counted as its body's bytes.
    const again = shipper(port);
    expect(again.status()).toMatchObject({ queued: 6, dropped: { queue_full: 0, rejected: 0 } });
    expect(Math.abs(again.status().queued_bytes - held.queued_bytes)).toBeLessThan(500);
    // Still full: a small item fits in what is left, another big one does not.
    again.onError('acme', { id: 'err_1', issueId: 'iss_1', timestamp: new Date(0).toISOString(), level: 'error', message: 'boom', context: { agentId: 'a', ruleId: '', traceId: '' } });
    again.onLog('acme', log(99));
    expect(again.status()).toMatchObject({ queued: 7, dropped: { queue_full: 1, rejected: 0 } });
    await again.close();
  });

  it('the item bound still holds on its own', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-tq-'));
    store = openGatewayStore(dir);
    const s = shipper(await closedPort(), { queueMax: 3, queueMaxBytes: 64 * 1024 * 1024 });
    for (let i = 0; i < 5; i++) s.onLog('acme', log(i));
    expect(s.status()).toMatchObject({ queued: 3, dropped: { queue_full: 2, rejected: 0 } });
    await s.close();
  });
});
