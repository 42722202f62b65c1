import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../results/', import.meta.url));

/** Writes bench/results/<name>.json with the machine it ran on, so figures in docs can be traced to a run. */
export function writeResults(name: string, results: unknown): string {
  mkdirSync(DIR, { recursive: true });
  const file = `${DIR}${name}.json`;
  const machine = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memGiB: Math.round(totalmem() / 2 ** 30) };
  writeFileSync(file, `${JSON.stringify({ name, at: new Date().toISOString(), machine, results }, null, 2)}\n`);
  return file;
}
