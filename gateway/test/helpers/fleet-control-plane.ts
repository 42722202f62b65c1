import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createLogger, generateToken, hashToken, newId } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type GatewayConfig, type RunningGateway } from '../../src/index.js';
import { HttpServer } from '../../src/http/server.js';
import { BodyBudget } from '../../src/http/body-budget.js';
import { GatewayError } from '../../src/errors.js';
import { registerBundleRoute } from '../../src/fleet/bundle/bundle-route.js';
import { sidecarGuard } from '../../src/fleet/sidecar-auth.js';
import type { BundledAgent } from '../../src/fleet/bundle/bundle-format.js';
import { InProcessChangeFeed } from '../../src/fleet/bundle/in-process-change-feed.js';
import type { SidecarTokenRecord, SidecarTokenRepository, SidecarTokenRotation } from '../../src/storage/repositories.js';
import { mintSuccessor } from '../../src/fleet/sidecar-token-store.js';
import { startTestGateway, type TestGateway } from './start-test-gateway.js';
import { threadingUnderTest } from './threading-under-test.js';

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

  async rotate(id: string): Promise<SidecarTokenRotation> {
    for (const [hash, old] of this.#byHash) {
      if (old.id !== id) continue;
      if (old.rotated_to) return { kind: 'already_rotated' };
      const next = mintSuccessor(old);
      this.#byHash.set(next.hash, next.record);
      this.#byHash.set(hash, { ...old, revoked_at: old.revoked_at ?? next.record.created_at, rotated_to: next.record.id });
      return { kind: 'rotated', token: next.token, record: next.record };
    }
    return { kind: 'not_found' };
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

/** An HTTP server for the fleet routes alone: their guard checks sidecar tokens in `tokens`; no PAT is accepted. */
export function sidecarOnlyServer(name: string, tokens: SidecarTokenRepository): HttpServer {
  return new HttpServer({
    logger: createLogger(name, { level: 'silent' }),
    access: {
      authenticate: () => {
        throw new GatewayError('unauthenticated');
      },
      admit: () => undefined,
    },
    guards: { sidecar: sidecarGuard(tokens) },
    budget: new BodyBudget(1 << 24, 1 << 24),
    defaultMaxBody: 1 << 20,
    serviceName: name,
  });
}

/**
 * A control plane for tests: an embedded gateway (its governance API and LMDB repositories hold the state) and, on a
 * port of its own, the bundle route over those repositories with an in-process change feed. `stop()` / `start()`
 * take the bundle endpoint away and bring it back on the same port (what a sidecar sees of a control-plane outage):
 * the sidecar talks to a relay on a front port, which is closed and reopened (uWS cannot reopen a closed port).
 */
export class TestControlPlane {
  readonly changes = new InProcessChangeFeed();
  readonly sidecarTokens = new MemorySidecarTokens();
  #server: HttpServer | null = null;
  #backendPort = 0;
  #front: Server | null = null;
  readonly #sockets = new Set<Socket>();
  #port = 0;

  private constructor(readonly gw: TestGateway) {}

  static async start(): Promise<TestControlPlane> {
    const cp = new TestControlPlane(await startTestGateway());
    const server = sidecarOnlyServer('control-plane', cp.sidecarTokens);
    const agents = cp.gw.gw.deps.agents;
    const agentProfiles = (tenantId: string): BundledAgent[] =>
      agents.list(tenantId, { limit: 10_000 }).data.map((a) => ({ agent_id: a.agentId, name: a.name, policy_pack: a.policyPack, risk_budget: a.riskBudget, suspended: a.suspended }));
    registerBundleRoute(server, { repos: cp.gw.gw.deps, changes: cp.changes, agentProfiles });
    server.finish();
    cp.#server = server;
    cp.#backendPort = await server.listen('127.0.0.1', 0);
    await cp.start();
    return cp;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** Opens the front port (the same one after a stop): connections are relayed to the bundle server. */
  async start(): Promise<void> {
    if (this.#front) return;
    const front = createServer((client) => {
      const backend = connect(this.#backendPort, '127.0.0.1');
      this.#sockets.add(client).add(backend);
      const drop = (): void => {
        client.destroy();
        backend.destroy();
        this.#sockets.delete(client);
        this.#sockets.delete(backend);
      };
      client.on('error', drop).on('close', drop);
      backend.on('error', drop).on('close', drop);
      client.pipe(backend).pipe(client);
    });
    await new Promise<void>((resolve, reject) => front.once('error', reject).listen(this.#port, '127.0.0.1', () => resolve()));
    this.#port = (front.address() as AddressInfo).port;
    this.#front = front;
  }

  /** A control-plane outage as a sidecar sees it: the port refuses connections and open long-polls are cut. */
  async stop(): Promise<void> {
    const front = this.#front;
    if (!front) return;
    this.#front = null;
    for (const sock of this.#sockets) sock.destroy();
    this.#sockets.clear();
    await new Promise<void>((resolve) => front.close(() => resolve()));
  }

  /** Announces a change made through the control gateway (PostgreSQL triggers do this in fleet mode). */
  bump(): number {
    return this.changes.bump();
  }

  async close(): Promise<void> {
    await this.stop();
    await this.changes.close();
    await this.#server?.close(0);
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
  logger = createLogger('sidecar', { level: 'silent' }),
): Promise<TestSidecar> {
  const config = loadGatewayConfig(
    {},
    { dataDir, port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', controlPlaneUrl, sidecarToken, fleetBundleWaitS: 20, fleetRetryBaseMs: 50, fleetRetryMaxMs: 200, ...threadingUnderTest(), ...overrides },
  );
  const gw = await startGateway({ config, logger });
  await gw.threadsReady();
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
