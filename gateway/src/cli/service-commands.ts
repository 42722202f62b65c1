import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Runs `close` once on SIGTERM/SIGINT, then exits 0 (in-flight requests finished, LMDB flushed). */
function stopOnSignal(name: string, close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`aduana ${name}: ${signal}, stopping\n`);
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`aduana ${name}: error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

export async function runGatewayService(): Promise<null> {
  // Imported here so `aduana start` (which only spawns the services) and the scanner process never load the gateway.
  const { startGateway } = await import('../gateway.js');
  const gw = await startGateway();
  process.stderr.write(`aduana gateway: API and proxy on ${gw.url}, auth service on ${gw.authUrl}\n`);
  stopOnSignal('gateway', () => gw.close());
  return null;
}

export async function runScannerService(): Promise<null> {
  const { startScanner } = await import('@aduana/scanner');
  const sc = await startScanner();
  process.stderr.write(`aduana scanner: listening on ${sc.url}\n`);
  stopOnSignal('scanner', () => sc.close());
  return null;
}

/** `npm start`: each service in its own process, so one crashing never takes the other down silently. */
export async function runAllServices(): Promise<null> {
  const main = fileURLToPath(new URL('./main.js', import.meta.url));
  const children: ChildProcess[] = ['gateway', 'scanner'].map((svc) => spawn(process.execPath, [main, svc], { stdio: 'inherit' }));
  let exiting = false;
  const stopAll = (signal: NodeJS.Signals) => {
    exiting = true;
    for (const c of children) if (c.exitCode === null) c.kill(signal);
  };
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  process.on('SIGINT', () => stopAll('SIGTERM'));
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) =>
          c.on('exit', (code) => {
            if (!exiting) {
              process.stderr.write(`aduana: a service exited (code ${code}); stopping the others\n`);
              process.exitCode = code || 1;
              stopAll('SIGTERM');
            }
            resolve();
          }),
        ),
    ),
  );
  return null;
}
