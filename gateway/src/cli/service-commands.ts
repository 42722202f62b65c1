import { stopOnSignal } from '@aduana/shared';
import { loadGatewayConfig } from '../config.js';
import { lockDataDir } from '../storage/data-dir-lock.js';

/*
 * A service holds its data directory's lock for as long as it runs (docs/sidecar.md, "One process per data
 * directory"): a second one on the same DATA_DIR would append to the same ledger. The embedded gateway, a sidecar and
 * a control plane all write the `gateway` environment there, so they exclude each other too.
 */

export async function runGatewayService(): Promise<null> {
  const config = loadGatewayConfig();
  const lock = lockDataDir(config.dataDir, 'gateway', 'aduana gateway');
  // Imported here so the admin commands never load the servers.
  const { startGateway } = await import('../gateway.js');
  const gw = await startGateway({ config }).catch((err: unknown) => {
    lock.release();
    throw err;
  });
  process.stderr.write(`aduana gateway: API and proxy on ${gw.url}, auth service on ${gw.authUrl}\n`);
  if (gw.agentsUrl !== null) process.stderr.write(`aduana gateway: agents' calls on ${gw.agentsUrl} too, served by every thread\n`);
  stopOnSignal('gateway', async () => {
    await gw.close();
    lock.release();
  });
  return null;
}

export async function runControlPlaneService(): Promise<null> {
  const config = loadGatewayConfig();
  const lock = lockDataDir(config.dataDir, 'gateway', 'aduana control');
  const { startControlPlane } = await import('../control-plane.js');
  const cp = await startControlPlane({ config }).catch((err: unknown) => {
    lock.release();
    throw err;
  });
  process.stderr.write(`aduana control: API on ${cp.url}, auth service on ${cp.authUrl}\n`);
  stopOnSignal('control', async () => {
    await cp.close();
    lock.release();
  });
  return null;
}
