import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from './postgres-server.js';

/** A Redis server of the machine's own package, in a temp dir, on a loopback port: for tests and benchmarks. */
export interface LocalRedis {
  /** redis://127.0.0.1:port */
  readonly url: string;
  readonly port: number;
  /** Stops the server; `restart()` starts it again on the same port (with empty memory: no persistence). */
  halt(): Promise<void>;
  restart(): Promise<void>;
  /** Stops it for good and removes its directory. */
  stop(): Promise<void>;
}

export async function startLocalRedis(): Promise<LocalRedis> {
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) {
    throw new Error('Redis is not installed: scripts/system-packages.sh installs it (apt-get install redis-server)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'aduana-redis-'));
  const port = await freeLoopbackPort();
  let child: ReturnType<typeof spawn> | null = null;
  const start = async (): Promise<void> => {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Redis did not start within 10 s:\n${log}`)), 10_000);
      proc.stdout?.on('data', (b: Buffer) => {
        log += b.toString();
        if (log.includes('Ready to accept connections')) {
          clearTimeout(timer);
          proc.stdout?.removeAllListeners('data');
          proc.stdout?.resume();
          resolve();
        }
      });
      proc.stderr?.resume();
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Redis exited (${code}) at start:\n${log}`));
      });
    });
  };
  const halt = async (): Promise<void> => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    halt,
    restart: start,
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
