import { readdirSync, readFileSync } from 'node:fs';
import type { PgLedgerArchive } from '@aduana/gateway/fleet/shipping';

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux everywhere it matters). */
const TICKS = 100;

function times(pid: number): { own: number; children: number; ppid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

/**
 * CPU seconds the PostgreSQL server has used so far: the postmaster and its live processes (backends, WAL writer,
 * checkpointer, autovacuum), plus the exited ones the postmaster has reaped. Linux /proc only; null elsewhere.
 */
export async function postgresCpuMeter(pool: Pick<PgLedgerArchive['pool'], 'query'>): Promise<(() => number) | null> {
  const dir = (await pool.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory;
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(`${dir}/postmaster.pid`, 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
  return () => {
    const main = times(postmaster);
    if (!main) return 0;
    let ticks = main.own + main.children;
    for (const name of readdirSync('/proc')) {
      const pid = Number(name);
      if (!Number.isInteger(pid) || pid === postmaster) continue;
      const t = times(pid);
      if (t && t.ppid === postmaster) ticks += t.own;
    }
    return ticks / TICKS;
  };
}
