import { stopOnSignal } from '@aduana/shared';

export async function runGatewayService(): Promise<null> {
  // Imported here so the admin commands never load the servers.
  const { startGateway } = await import('../gateway.js');
  const gw = await startGateway();
  process.stderr.write(`aduana gateway: API and proxy on ${gw.url}, auth service on ${gw.authUrl}\n`);
  stopOnSignal('gateway', () => gw.close());
  return null;
}

export async function runControlPlaneService(): Promise<null> {
  const { startControlPlane } = await import('../fleet/control/control-plane.js');
  const cp = await startControlPlane();
  process.stderr.write(`aduana control: API on ${cp.url}, auth service on ${cp.authUrl}\n`);
  stopOnSignal('control', () => cp.close());
  return null;
}
