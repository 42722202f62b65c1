import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, type Dispatcher } from 'undici';
import { createLogger, type Logger } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type GatewayConfig, type RunningGateway } from '../../src/index.js';
import type { Role } from '../../src/identity/auth/principal.js';
import type { Plan } from '../../src/identity/tenants/plans.js';
import { threadingUnderTest } from './threading-under-test.js';

export interface TestGateway {
  gw: RunningGateway;
  url: string;
  /** The agents' port (with `agentPort` set), else the gateway's port. */
  agentsUrl: string;
  authUrl: string;
  dataDir: string;
  /** Admin PAT of tenant `default` (from the bootstrap). */
  adminToken: string;
  /** A new tenant (enterprise plan unless given, so tests are not throttled by accident) with a token of each role. */
  tenant(id: string, plan?: Plan): Promise<Record<Role, string>>;
  token(tenantId: string, role: Role, expiresInDays?: number): Promise<string>;
  close(): Promise<void>;
}

/** `logger`: where the gateway's lines go (default: nowhere), for a test that reads them. */
export async function startTestGateway(overrides: Partial<Record<keyof GatewayConfig, string | number | boolean>> = {}, options: { logger?: Logger } = {}): Promise<TestGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aduana-gw-'));
  let gw: RunningGateway;
  try {
    const config = loadGatewayConfig({}, { dataDir, port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', ...threadingUnderTest(), ...overrides });
    gw = await startGateway({ config, logger: options.logger ?? createLogger('test', { level: 'silent' }) });
    // With request threads, the agents' port's connections go to every thread from the first.
    await gw.threadsReady();
  } catch (err) {
    // A start-up that fails (the tests of refused settings) leaves no directory behind.
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  if (!gw.bootstrapToken) throw new Error('expected a bootstrap token on an empty data dir');
  const { tenants, tokens } = gw.deps;
  // Whatever plan the bootstrap gives it, tests that use `default` are not throttled; most tests use their own tenants.
  await tenants.setPlan('default', 'enterprise', 'test');
  const token = async (tenantId: string, role: Role, expiresInDays = 30) =>
    (await tokens.create({ tenantId, role, name: `${role} test`, expiresInDays })).token;
  return {
    gw,
    url: gw.url,
    agentsUrl: gw.agentsUrl ?? gw.url,
    authUrl: gw.authUrl,
    dataDir,
    adminToken: gw.bootstrapToken,
    token,
    async tenant(id: string, plan: Plan = 'enterprise') {
      if (!(await tenants.create(id, plan))) throw new Error(`tenant ${id} exists`);
      return { admin: await token(id, 'admin'), operator: await token(id, 'operator'), viewer: await token(id, 'viewer') };
    },
    async close() {
      await gw.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  body: any;
  text: string;
}

/** One HTTP call with undici; JSON in, JSON (or text) out. `dispatcher`: e.g. an Agent bound to another loopback address. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string>; dispatcher?: Dispatcher; signal?: AbortSignal } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
  let body: string | Buffer | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(`${base}${path}`, { method: method as 'GET', headers, body, ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}), ...(opts.signal ? { signal: opts.signal } : {}) });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) flat[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return { status: res.statusCode, headers: flat, body: parsed, text };
}

/** Asserts the error envelope (docs/decisions.md, "Errors") and returns it. */
export function expectEnvelope(r: CallResult, status: number, type: string): { code: number; type: string; message: string; rule: string; traceId: string } {
  const e = r.body?.error;
  if (r.status !== status || !e || e.code !== status || e.type !== type || typeof e.message !== 'string' || typeof e.rule !== 'string' || typeof e.traceId !== 'string' || e.traceId === '') {
    throw new Error(`expected ${status} ${type} envelope, got ${r.status} ${r.text.slice(0, 300)}`);
  }
  return e;
}
