import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * Starts a server program and resolves once its output (stdout or stderr) shows `ready`; rejects with what it printed
 * when it exits first or stays silent past `timeoutMs`. Its output is drained afterwards, so a full pipe never
 * blocks it.
 */
export async function spawnUntilReady(name: string, bin: string, args: string[], options: SpawnOptions, ready: string, timeoutMs: number): Promise<ChildProcess> {
  const proc = spawn(bin, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs / 1000} s:\n${log}`)), timeoutMs);
    const onData = (b: Buffer): void => {
      log += b.toString();
      if (!log.includes(ready)) return;
      clearTimeout(timer);
      proc.removeAllListeners('exit');
      for (const s of [proc.stdout, proc.stderr]) {
        s?.removeListener('data', onData);
        s?.resume();
      }
      resolve();
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) at start:\n${log}`));
    });
  });
  return proc;
}

/** Stops a server started by spawnUntilReady with `signal` and waits for it to exit (nothing to do once it has). */
export async function stopServer(proc: ChildProcess | null, signal: NodeJS.Signals): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill(signal);
  });
}
