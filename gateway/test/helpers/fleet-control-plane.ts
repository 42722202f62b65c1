import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, generateToken, hashToken, newId } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type GatewayConfig, type RunningGateway } from '../../src/index.js';
import { HttpServer } from '../../src/http/server.js';
import { BodyBudget } from '../../src/http/body-budget.js';
import { GatewayError } from '../../src/errors.js';
import { registerBundleRoute } from '../../src/fleet/bundle/bundle-route.js';
import { InProcessChangeFeed } from '../../src/fleet/bundle/in-process-change-feed.js';
import type { SidecarTokenRecord, SidecarTokenRepository } from '../../src/storage/repositories.js';
import { startTestGateway, type TestGateway } from './start-test-gateway.js';

/** Sidecar tokens in memory: the stand-in for the control plane's PostgreSQL table in these tests. */
export class MemorySidecarTokens implements SidecarTokenRepository {
  readonly #byHash = new Map<string, SidecarTokenRecord>();

  async create(name: string, tenants: string[] | null): Promise<{ token: string; record: SidecarTokenRecord }> {
    const token = generateToken('sct');
    const record: SidecarTokenRecord = { id: newId('sct'), name, tenants, created_at: new Date().toISOString(), revoked_at: null, last4: token.slice(-4) };
    this.#byHash.set(hashToken(token), record);
    return { token, record };
  }

  findByHash(hash: string): SidecarTokenRecord | undefined {
    return this.#byHash.get(hash);
  }

  list(): SidecarTokenRecord[] {
    return [...this.#byHash.values()];
  }

  async revoke(id: string): Promise<boolean> {
    for (const [hash, rec] of this.#byHash) {
      if (rec.id === id) {
        this.#byHash.set(hash, { ...rec, revoked_at: new Date().toISOString() });
        return true;
      }
    }
    return false;
  }
}

/**
 * A control plane for tests: an embedded gateway (its governance API and LMDB repositories hold the state) and, on a
 * port of its own, the bundle route over those repositories with an in-process change feed. `stop()` / `start()`
 * take the bundle endpoint away and bring it back on the same port (what a sidecar sees of a control-plane outage).
 */
export class TestControlPlane {
  readonly changes = new InProcessChangeFeed();
  readonly sidecarTokens = new MemorySidecarTokens();
  #server: HttpServer | null = null;
  #port = 0;

  private constructor(readonly gw: TestGateway) {}

  static async start(): Promise<TestControlPlane> {
    const cp = new TestControlPlane(await startTestGateway());
    await cp.start();
    return cp;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  async start(): Promise<void> {
    const server = new HttpServer({
      logger: createLogger('control-plane', { level: 'silent' }),
      access: {
        authenticate: () => {
          throw new GatewayError('unauthenticated');
        },
        admit: () => undefined,
      },
      budget: new BodyBudget(1 << 24, 1 << 24),
      defaultMaxBody: 1 << 20,
      serviceName: 'control-plane',
    });
    registerBundleRoute(server, { repos: this.gw.gw.deps, sidecarTokens: this.sidecarTokens, changes: this.changes });
    server.finish();
    this.#port = await server.listen('127.0.0.1', this.#port);
    this.#server = server;
  }

  /** Closes the bundle endpoint (open long-polls are cut), keeping its port for `start()`. */
  async stop(): Promise<void> {
    await this.#server?.close(0);
    this.#server = null;
  }

  /** Announces a change made through the control gateway (PostgreSQL triggers do this in fleet mode). */
  bump(): number {
    return this.changes.bump();
  }

  async close(): Promise<void> {
    await this.stop();
    await this.changes.close();
    await this.gw.close();
  }
}

export interface TestSidecar {
  gw: RunningGateway;
  url: string;
  authUrl: string;
  dataDir: string;
  /** Stops the process's gateway, keeping its data dir. */
  stop(): Promise<void>;
  /** Stops it and removes its data dir. */
  close(): Promise<void>;
}

/** A sidecar gateway (CONTROL_PLANE_URL + SIDECAR_TOKEN) on its own data dir (or a given one, to restart on it). */
export async function startSidecar(
  controlPlaneUrl: string,
  sidecarToken: string,
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-sidecar-')),
  overrides: Partial<Record<keyof GatewayConfig, string | number | boolean>> = {},
): Promise<TestSidecar> {
  const config = loadGatewayConfig(
    {},
    { dataDir, port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', controlPlaneUrl, sidecarToken, fleetBundleWaitS: 20, fleetRetryBaseMs: 50, fleetRetryMaxMs: 200, ...overrides },
  );
  const gw = await startGateway({ config, logger: createLogger('sidecar', { level: 'silent' }) });
  let stopped: Promise<void> | null = null;
  const stop = (): Promise<void> => (stopped ??= gw.close());
  return {
    gw,
    url: gw.url,
    authUrl: gw.authUrl,
    dataDir,
    stop,
    async close() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns whether it did. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 2000, everyMs = 25): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
