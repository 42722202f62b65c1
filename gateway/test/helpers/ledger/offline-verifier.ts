import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The offline verifier users run on an export (scripts/verify-ledger-export.mjs). */
export const OFFLINE_VERIFIER = fileURLToPath(new URL('../../../../scripts/verify-ledger-export.mjs', import.meta.url));

/** Writes `text` as an export file in `dir` and runs the offline verifier on it: its exit code and output. */
export async function verifyOffline(dir: string, text: string, extra: readonly string[] = []): Promise<{ code: number; out: string }> {
  const path = join(dir, `check-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(path, text);
  try {
    const { stdout } = await run(process.execPath, [OFFLINE_VERIFIER, path, ...extra]);
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}
