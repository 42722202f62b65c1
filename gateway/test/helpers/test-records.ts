import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@aduana/shared';

/** Every file of a data dir, as bytes: what a test greps for a secret that must never be written. */
export function dataFiles(dir: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...dataFiles(path));
    else out.push({ path, bytes: readFileSync(path) });
  }
  return out;
}

/** A logger at every level whose lines (JSON text) are pushed onto `lines`, for a test that reads what was logged. */
export function capturingLogger(lines: string[], name = 'test'): Logger {
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return createLogger(name, { level: 'trace', destination });
}
