import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@aduana/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { Ledger } from '../index.js';

// The child runs this repo's TypeScript sources directly (Node's --experimental-transform-types plus a resolve hook
// mapping `.js` imports to `.ts`), so the test needs no build and cannot exercise a stale dist/.
const fixtures = (name: string): string => fileURLToPath(new URL(`../../../test/helpers/${name}`, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'aduana-ledger-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the child until it has acknowledged at least `minAcks` entries, then SIGKILLs it; returns the acknowledged seq -> hash. */
async function loadAndKill(minAcks: number): Promise<Map<number, string>> {
  const child = spawn(
    process.execPath,
    ['--experimental-transform-types', '--no-warnings', '--conditions=source', '--import', fixtures('register-ts.mjs'), fixtures('ledger/crash-child.ts'), dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const acked = new Map<number, string>();
  let buffered = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child acknowledged only ${acked.size} entries; stderr: ${stderr}`)), 25_000);
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!; // an unfinished line was not fully acknowledged yet: ignore it
      for (const line of lines) {
        if (line === 'ready') continue;
        for (const pair of line.split(' ')) {
          const [seq, hash] = pair.split(':');
          acked.set(Number(seq), hash!);
        }
      }
      if (acked.size >= minAcks) {
        clearTimeout(timer);
        child.kill('SIGKILL'); // mid-load: dozens of appends are in flight right now
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (acked.size < minAcks) reject(new Error(`child exited early (${code}); stderr: ${stderr}`));
    });
  });
  expect(await exited).toBe('SIGKILL');
  return acked;
}

describe('crash safety', () => {
  it('keeps every acknowledged entry, without gaps, through SIGKILLs under load', async () => {
    let before = 0;
    for (let round = 0; round < 2; round++) {
      const acked = await loadAndKill(before + 3000);
      const root = openStore(dir, 'gateway');
      const ledger = Ledger.open(root, { keyDir: dir });
      try {
        const report = await ledger.verify('crash');
        expect(report).toMatchObject({ ok: true, firstBrokenSeq: null });
        const head = ledger.head('crash');
        expect(report.checked).toBe(head.size);
        const maxAcked = Math.max(...acked.keys());
        expect(head.size).toBeGreaterThanOrEqual(maxAcked);
        for (const [seq, hash] of acked) expect(ledger.get('crash', seq)?.hash).toBe(hash);
        expect(report.checkpointsChecked).toBeGreaterThan(0);
        before = head.size;
      } finally {
        await ledger.close();
        await root.close();
      }
    }
  }, 90_000);
});
