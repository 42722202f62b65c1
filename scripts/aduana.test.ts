import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The repository's `aduana` command, run as users run it (after `npm test`'s build). */
const root = new URL('..', import.meta.url).pathname;
const DISPATCHER = join(root, 'scripts', 'aduana.mjs');

function aduana(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [DISPATCHER, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
}

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-dispatch-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('aduana (the repository command)', () => {
  it('help lists every service package’s commands', () => {
    const r = aduana(['--help']);
    expect(r.status).toBe(0);
    for (const cmd of ['start', 'config', 'gateway', 'token create', 'sidecar-token create', 'ledger verify', 'scanner']) expect(r.stdout).toContain(cmd);
  });

  it('help says what the exit codes mean, once', () => {
    const r = aduana(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout.split('exit status: 0 ok, 1 runtime failure, 2 usage error')).toHaveLength(2);
  });

  it('start and config answer --help and -h (exit 0), refuse an unknown option or argument (exit 2); a package’s command answers --help through it', () => {
    // Settings no service can start with: a `start` that went on to run would exit 1 here, not serve.
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', GATEWAY_PORT: 'eighty', SCANNER_PORT: 'eighty' };
    for (const cmd of ['start', 'config']) {
      for (const flag of ['--help', '-h']) {
        const r = aduana([cmd, flag], env);
        expect(r.status, `${cmd} ${flag}: ${r.stderr}`).toBe(0);
        expect(r.stdout).toContain(`usage: aduana ${cmd}`);
      }
      for (const bad of ['--bogus', 'extra']) {
        const r = aduana([cmd, bad], env);
        expect(r.status, `${cmd} ${bad}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(bad);
      }
    }
    const create = aduana(['token', 'create', '--help'], env);
    expect(create.status, create.stderr).toBe(0);
    expect(create.stdout).toContain('--agent');
  });

  it('an unknown command exits 2 with the usage; a service command’s exit code comes through', () => {
    const r = aduana(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    expect(aduana(['tenant', 'create', 'Bad Name!'], env).status).toBe(2);
    const created = aduana(['tenant', 'create', 'dispatch-co'], env);
    expect(created.status).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ id: 'dispatch-co' });
  });

  it('config is every service’s settings, the text of docs/configuration.md', () => {
    const r = aduana(['config']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(root, 'docs', 'configuration.md'), 'utf8'));
    expect(r.stdout).toContain('GATEWAY_PORT');
    expect(r.stdout).toContain('SCANNER_PORT');
  });

  it('start runs the gateway and the scanner, each in its own process, and stops both on SIGTERM', async () => {
    const env = { ...process.env, DATA_DIR: join(dataDir, 'start'), GATEWAY_PORT: '0', AUTH_PORT: '0', SCANNER_PORT: '0', LOG_LEVEL: 'silent', ADUANA_QUIET_BOOTSTRAP: 'true' };
    const child = spawn(process.execPath, [DISPATCHER, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`services did not start: ${out}`)), 20_000);
        const poll = setInterval(() => {
          if (/API and proxy on/.test(out) && /scanner: listening on/.test(out)) {
            clearInterval(poll);
            clearTimeout(timer);
            resolve();
          }
        }, 50);
      });
      const gw = /API and proxy on (http:\/\/[\d.:]+)/.exec(out)![1]!;
      const sc = /scanner: listening on (http:\/\/[\d.:]+)/.exec(out)![1]!;
      expect((await request(`${gw}/health`)).statusCode).toBe(200);
      expect((await request(`${sc}/healthz`)).statusCode).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(out).toContain('aduana gateway: SIGTERM, stopping');
    expect(out).toContain('aduana scanner: SIGTERM, stopping');
  });
});
