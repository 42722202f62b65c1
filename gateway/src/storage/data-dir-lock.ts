import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { tryLock } from 'fs-native-extensions';

/** A service's hold on its data directory, kept until `release()` or the end of the process. */
export interface DataDirLock {
  /** The lock file. */
  readonly path: string;
  release(): void;
}

/**
 * Takes the exclusive lock of `environment` (the LMDB environment a service writes, e.g. `gateway`) on `dataDir`,
 * or throws naming the directory and the process that holds it. The lock is the operating system's, on the open file
 * `<dataDir>/<environment>.lock` (open-file-description locks on Linux, flock on macOS): the kernel drops it when the
 * process ends, however it ends (SIGKILL included), so nothing stale is ever left to clean up; the file stays and the
 * next start takes it again. Only services take it: the admin commands work beside a running service (LMDB is safe
 * across processes). `holder` (e.g. `aduana gateway`) is written into the file for the message a second start gets.
 */
export function lockDataDir(dataDir: string, environment: string, holder: string): DataDirLock {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${environment}.lock`);
  // Never truncated before the lock is held: the holder's note stays readable to the start that is refused.
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  let granted = false;
  try {
    granted = tryLock(fd);
  } finally {
    if (!granted) closeSync(fd);
  }
  if (!granted) {
    throw new Error(`DATA_DIR ${dir} is in use by ${holderOf(path)}: each running ${environment} needs a data directory of its own`);
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${holder}, pid ${process.pid} on ${hostname()}, since ${new Date().toISOString()}\n`, 0);
  let held = true;
  return {
    path,
    release() {
      if (!held) return;
      held = false;
      closeSync(fd);
    },
  };
}

function holderOf(path: string): string {
  try {
    const note = readFileSync(path, 'utf8').trim();
    if (note !== '') return `another process (${note})`;
  } catch {
    // The note is only for the message.
  }
  return 'another process';
}
