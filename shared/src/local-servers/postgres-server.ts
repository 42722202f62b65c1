import { spawnSync, type ChildProcess } from 'node:child_process';
import { spawnUntilReady, stopServer } from './server-process.js';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A PostgreSQL server of the machine's own packages, in a temp dir, on a loopback port: for tests and benchmarks. */
export interface LocalPostgres {
  /** postgres://… of the `aduana` database (superuser `aduana`, password `aduana`). */
  readonly url: string;
  readonly port: number;
  /** A URL of a fresh, empty database on the same server (each test file its own). */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
  /** Stops the server without removing its data, so `restart()` finds it again. */
  halt(): Promise<void>;
  restart(): Promise<void>;
}

/** Debian keeps the server programs under /usr/lib/postgresql/<major>/bin; elsewhere they are on PATH. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root).filter((d) => existsSync(join(root, d, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(root, majors[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const path = which.stdout.trim();
  return path ? path.slice(0, path.lastIndexOf('/')) : null;
}

export async function freeLoopbackPort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, the server runs as the `postgres` account (or `nobody`). */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('running as root and neither a postgres nor a nobody account exists to run PostgreSQL');
}

function run(bin: string, args: string[], as: { uid: number; gid: number } | null): void {
  const r = spawnSync(bin, args, { encoding: 'utf8', ...(as ?? {}), env: { ...process.env, LC_ALL: 'C' } });
  if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
}

/**
 * initdb into a new temp dir, then postgres on a free loopback port, tuned for a throwaway server (fsync stays on, so
 * a benchmark measures what a real server does). Throws with the reason when the programs are missing.
 */
export async function startLocalPostgres(options: { fsync?: boolean } = {}): Promise<LocalPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed: scripts/system-packages.sh installs it (apt-get install postgresql)');
  const as = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'aduana-pg-'));
  if (as) chownSync(dir, as.uid, as.gid);
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, 'aduana\n');
  if (as) chownSync(pwfile, as.uid, as.gid);
  run(join(bin, 'initdb'), ['-D', data, '-U', 'aduana', '--pwfile', pwfile, '-A', 'scram-sha-256', '-E', 'UTF8', '--no-instructions'], as);
  const port = await freeLoopbackPort();
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    const args = ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', `fsync=${options.fsync === false ? 'off' : 'on'}`, '-c', 'max_connections=200', '-c', 'shared_buffers=64MB'];
    child = await spawnUntilReady('PostgreSQL', join(bin, 'postgres'), args, as ?? {}, 'database system is ready to accept connections', 30_000);
  };
  const halt = async (): Promise<void> => {
    const proc = child;
    child = null;
    await stopServer(proc, 'SIGINT'); // fast shutdown
  };

  await start();
  const base = `postgres://aduana:aduana@127.0.0.1:${port}`;
  await psql(bin, port, 'CREATE DATABASE aduana');
  return {
    url: `${base}/aduana`,
    port,
    async createDatabase(name: string) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new RangeError(`invalid database name ${name}`);
      await psql(bin, port, `CREATE DATABASE ${name}`);
      return `${base}/${name}`;
    },
    halt,
    restart: start,
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function psql(bin: string, port: number, sql: string): Promise<void> {
  const psqlBin = existsSync(join(bin, 'psql')) ? join(bin, 'psql') : 'psql';
  const r = spawnSync(psqlBin, ['-h', '127.0.0.1', '-p', String(port), '-U', 'aduana', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
    encoding: 'utf8',
    env: { ...process.env, PGPASSWORD: 'aduana' },
  });
  if (r.status !== 0) throw new Error(`psql: ${r.stderr}`);
}
