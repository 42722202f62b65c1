import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, waitExit } from './helpers/run-cli.js';

// `aduana gateway` as users start it: the repository's launcher, which runs the service in a child process.
const LAUNCHER = fileURLToPath(new URL('../../scripts/aduana.mjs', import.meta.url));
const FLAGS = (JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8')) as { aduana: { nodeFlags: string[] } }).aduana.nodeFlags;

let dataDir: string;
beforeAll(() => {
  assertBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-launcher-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts the launcher, waits until the gateway listens, and returns the service process's command line. */
async function serviceCommandLine(extraEnv: Record<string, string>): Promise<string[]> {
  const env = { ...process.env, DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'silent', ADUANA_QUIET_BOOTSTRAP: 'true', ...extraEnv };
  const launcher = spawn(process.execPath, [LAUNCHER, 'gateway'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`gateway did not start: ${out}`)), 30_000);
      launcher.stderr.on('data', (d: Buffer) => {
        out += d.toString();
        if (/API and proxy on/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      launcher.on('exit', (code) => reject(new Error(`launcher exited with ${code}: ${out}`)));
    });
    const children = readFileSync(`/proc/${launcher.pid}/task/${launcher.pid}/children`, 'utf8').trim().split(/\s+/);
    expect(children).toHaveLength(1);
    return readFileSync(`/proc/${children[0]}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } finally {
    launcher.kill('SIGTERM');
    await waitExit(launcher);
  }
}

describe.runIf(process.platform === 'linux')('the aduana launcher', () => {
  it("runs the gateway with exactly the package's V8 flags (today --v8-pool-size=1 and --max-old-space-size=512), before the script", async () => {
    const argv = await serviceCommandLine({ NODE_OPTIONS: '' });
    const script = argv.findIndex((a) => a.endsWith('cli/main.js'));
    expect(script).toBeGreaterThan(0);
    expect(argv.slice(1, script)).toEqual(FLAGS);
    expect(argv.slice(script + 1)).toEqual(['gateway']);
  }, 60_000);

  it('leaves a flag NODE_OPTIONS sets to NODE_OPTIONS', async () => {
    expect(FLAGS.some((f) => f.startsWith('--v8-pool-size'))).toBe(true);
    const argv = await serviceCommandLine({ NODE_OPTIONS: '--v8-pool-size=2' });
    expect(argv.some((a) => a.startsWith('--v8-pool-size'))).toBe(false);
  }, 60_000);
});
