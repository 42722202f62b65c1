import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../gateway/dist/cli/main.js', import.meta.url));

/** Runs an `aduana` admin command against a data dir and returns its stdout; `input` is its standard input (a password). */
export function aduana(args: string[], dataDirEnv: Record<string, string>, input?: string): string {
  return execFileSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...dataDirEnv },
    encoding: 'utf8',
    ...(input === undefined ? { stdio: ['ignore', 'pipe', 'ignore'] } : { input, stdio: ['pipe', 'pipe', 'ignore'] }),
  });
}
