import { spawnSync, type ChildProcess } from 'node:child_process';
import { spawnUntilReady, stopServer } from './server-process.js';
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
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'];
    child = await spawnUntilReady('Redis', 'redis-server', args, {}, 'Ready to accept connections', 10_000);
  };
  const halt = async (): Promise<void> => {
    const proc = child;
    child = null;
    await stopServer(proc, 'SIGTERM');
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
