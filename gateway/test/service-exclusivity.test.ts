import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, assertBuilt, runCli, startCliService, waitExit } from './helpers/run-cli.js';
import { call } from './helpers/start-test-gateway.js';
import { freePort } from './helpers/cookie-client.js';

/**
 * One running gateway per data directory and per port (docs/sidecar.md, "One process per data directory"): a second
 * `aduana gateway` on either exits non-zero naming it, the admin commands still work beside the running one, and a
 * gateway killed with SIGKILL leaves nothing that stops the next start.
 */
const READY = /API and proxy on (http:\/\/[\d.:]+), auth service on (http:\/\/[\d.:]+)/;
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aduana-excl-'));
  dirs.push(dir);
  return dir;
}

function envFor(dataDir: string, port = '0'): Record<string, string> {
  return { DATA_DIR: dataDir, GATEWAY_PORT: port, AUTH_PORT: '0', LOG_LEVEL: 'silent', ADUANA_QUIET_BOOTSTRAP: 'true' };
}

/** Runs `aduana gateway` expecting it to refuse to start: its exit code and output (a start that listens is killed and reported). */
function refusedStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, 'gateway'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (d: Buffer): void => {
      output += d.toString();
      if (READY.test(output)) {
        child.kill('SIGKILL');
        fail(new Error(`a second gateway started beside the first: ${output}`));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', fail);
    child.on('exit', (code) => done({ code, output }));
  });
}

const portOf = (url: string): string => new URL(url).port;

let dataDir: string;
let first: Awaited<ReturnType<typeof startCliService>>;
let url: string;

beforeAll(async () => {
  assertBuilt();
  dataDir = tempDir();
  // A port of its own, as deployed: uWS shares a port (SO_REUSEPORT) only when one is named, never for port 0.
  first = await startCliService(['gateway'], envFor(dataDir, String(await freePort())), READY);
  url = first.match[1] as string;
});
afterAll(async () => {
  if (first?.child.exitCode === null && first.child.signalCode === null) {
    first.child.kill('SIGTERM');
    await waitExit(first.child);
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('one gateway per data directory and port', () => {
  it('a second gateway on the same data directory exits non-zero, naming the directory', async () => {
    const r = await refusedStart(envFor(dataDir));
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.output).toContain(resolve(dataDir));
    expect(r.output).toMatch(/in use/);
    expect((await call(url, 'GET', '/health')).status).toBe(200);
  }, 30_000);

  it('a second gateway on the same port with another data directory exits non-zero, naming the port', async () => {
    const port = portOf(url);
    const r = await refusedStart(envFor(tempDir(), port));
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.output).toContain(`:${port}`);
    expect(r.output).toMatch(/in use/);
    expect((await call(url, 'GET', '/health')).status).toBe(200);
  }, 30_000);

  it('a control plane on the data directory of the running gateway exits non-zero, naming the directory', async () => {
    // Refused before it reaches its database: nothing listens at this one.
    const r = await runCli(['control'], { ...envFor(dataDir), DATABASE_URL: 'postgres://aduana@127.0.0.1:1/aduana' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(resolve(dataDir));
    expect(r.stderr).toMatch(/in use by another process \(aduana gateway, pid \d+/);
  }, 30_000);

  it("the CLI's admin commands work on the data directory of the running gateway", async () => {
    const env = envFor(dataDir);
    expect((await runCli(['tenant', 'create', 'excl', '--plan', 'enterprise'], env)).code).toBe(0);
    const created = await runCli(['token', 'create', '--tenant', 'excl', '--role', 'operator'], env);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    // The running gateway serves what the CLI wrote.
    expect((await call(url, 'POST', '/v1/events', { token, body: { event_type: 'beside.cli', payload: {} } })).status).toBe(200);
    const verify = await runCli(['ledger', 'verify', '--tenant', 'excl'], env);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^excl\tok\t\d+ entries/);
  }, 30_000);

  it('after SIGKILL of the running gateway, a new one starts on the same data directory and port', async () => {
    const port = portOf(url);
    const admin = readFileSync(join(dataDir, 'bootstrap-admin.token'), 'utf8').trim();
    first.child.kill('SIGKILL');
    expect(await waitExit(first.child)).toBeNull();
    const again = await startCliService(['gateway'], envFor(dataDir, port), READY);
    try {
      expect(portOf(again.match[1] as string)).toBe(port);
      expect((await call(again.match[1] as string, 'GET', '/v1/policies', { token: admin })).status).toBe(200);
    } finally {
      again.child.kill('SIGTERM');
      expect(await waitExit(again.child)).toBe(0);
    }
  }, 30_000);
});
