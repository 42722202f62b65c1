import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../gateway/dist/cli/main.js', import.meta.url));
const MANIFEST = fileURLToPath(new URL('../../../gateway/package.json', import.meta.url));

/** The V8 flags `aduana gateway` runs the service with (gateway/package.json, `aduana.nodeFlags`). */
export function gatewayNodeFlags(): string[] {
  return (JSON.parse(readFileSync(MANIFEST, 'utf8')) as { aduana: { nodeFlags?: string[] } }).aduana.nodeFlags ?? [];
}

export interface SpawnedGateway {
  url: string;
  /** The agents' port (AGENT_PORT, ephemeral unless `env` says otherwise): where the agents' calls go; `url` with AGENT_PORT=-1. */
  agentsUrl: string;
  /** The authentication service (logins, the console). */
  authUrl: string;
  dataDir: string;
  adminToken: string;
  pid: number;
  /** Time from spawn to the "listening" line, ms. */
  startupMs: number;
  /** Stops the gateway (SIGTERM: it flushes and closes LMDB), then deletes the data dir unless `keepData`. */
  stop(keepData?: boolean): Promise<void>;
}

/**
 * Runs `aduana gateway` in its own process (as users do: with the service's V8 flags unless `nodeFlags` is given), on
 * ephemeral ports and a fresh data dir.
 */
export async function spawnGateway(env: Record<string, string> = {}, nodeFlags: string[] = gatewayNodeFlags()): Promise<SpawnedGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aduana-bench-'));
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, CLI, 'gateway'], {
    // Default logging (info: one line per request) to /dev/null: the benchmark pays for logging as a deployment does.
    env: { ...process.env, DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'info', ADUANA_QUIET_BOOTSTRAP: 'true', AGENT_PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const wantAgents = Number(env['AGENT_PORT'] ?? '0') >= 0;
  const [url, authUrl, agentsUrl] = await new Promise<[string, string, string | null]>((resolve, reject) => {
    let out = '';
    child.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = out.match(/API and proxy on (http:\/\/[\d.:]+), auth service on (http:\/\/[\d.:]+)/);
      const agents = out.match(/agents' calls on (http:\/\/[\d.:]+)/);
      if (m && (!wantAgents || agents)) resolve([m[1] as string, m[2] as string, agents?.[1] ?? null]);
    });
    child.on('exit', (code) => reject(new Error(`gateway exited (${code}): ${out}`)));
  });
  const startupMs = performance.now() - t0;
  // A fleet sidecar bootstraps nothing: its tokens come from its control plane.
  const adminToken = env['CONTROL_PLANE_URL'] ? '' : readFileSync(join(dataDir, 'bootstrap-admin.token'), 'utf8').trim();
  return {
    url,
    agentsUrl: agentsUrl ?? url,
    authUrl,
    dataDir,
    adminToken,
    pid: child.pid as number,
    startupMs,
    async stop(keepData = false) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
