import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { hashToken, isWellFormedToken } from '@aduana/shared';
import { MockUpstream } from './helpers/mock-upstream.js';
import { assertBuilt, runCli, startCliService, waitExit } from './helpers/run-cli.js';

/**
 * docs/sidecar.md's Kubernetes walk-through, done as the cluster would do it and with nothing in between: the token
 * generated with the documented one-liner, the Secret as the documented `kubectl create secret` makes it, the sidecar
 * started with the environment deploy/kubernetes/agent-with-sidecar.yaml gives it (Secret references resolved), its
 * startup probe run, then the official openai SDK given the agent container's environment and nothing else.
 * What differs from a pod: DATA_DIR is a temp dir, the ports are ephemeral, the provider is a mock on loopback.
 */
const root = new URL('../..', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  env?: EnvVar[];
  startupProbe?: { exec?: { command: string[] } };
}

const docs = read('docs/sidecar.md');
const manifest = parseAllDocuments(read('deploy/kubernetes/agent-with-sidecar.yaml')).map((d) => d.toJSON() as { kind: string; spec: { template: { spec: { initContainers?: Container[]; containers: Container[] } } } });
const pod = manifest.find((o) => o.kind === 'StatefulSet')?.spec.template.spec;
const sidecarSpec = pod?.initContainers?.find((c) => c.name === 'aduana');
const agentSpec = pod?.containers.find((c) => c.name === 'agent');

/** The documented token generator, run as a shell runs it (`PAT=$(node -e "…")`), on this test's Node. */
function generateDocumentedToken(): string {
  const m = /^PAT=\$\((node -e "[^\n]+")\)$/m.exec(docs);
  if (!m) throw new Error('docs/sidecar.md shows no `PAT=$(node -e "…")` line');
  const r = spawnSync('sh', ['-c', m[1] as string], { encoding: 'utf8', env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` } });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

/** The documented `kubectl create secret generic NAME --from-literal=KEY="$VAR" …`, its variables given values. */
function documentedSecret(vars: Record<string, string>): { name: string; data: Record<string, string> } {
  const m = /kubectl create secret generic (\S+)((?: --from-literal=\w+="\$\w+")+)/.exec(docs);
  if (!m) throw new Error('docs/sidecar.md shows no `kubectl create secret generic` command');
  const data: Record<string, string> = {};
  for (const [, key, variable] of (m[2] as string).matchAll(/--from-literal=(\w+)="\$(\w+)"/g)) {
    if (vars[variable as string] === undefined) throw new Error(`the documented Secret reads $${variable}, which the walk-through does not set`);
    data[key as string] = vars[variable as string] as string;
  }
  return { name: m[1] as string, data };
}

/** A container's environment as the kubelet resolves it. */
function containerEnv(c: Container | undefined, secret: { name: string; data: Record<string, string> }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of c?.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) {
      expect(ref.name, `${e.name} reads the documented Secret`).toBe(secret.name);
      expect(secret.data[ref.key], `the Secret has ${ref.key}`).toBeDefined();
      out[e.name] = secret.data[ref.key] as string;
    } else out[e.name] = e.value ?? '';
  }
  return out;
}

/** The image puts deploy/healthcheck.mjs at /app/healthcheck.mjs (deploy/gateway.Dockerfile): run it from here. */
function runProbe(command: string[], port: string): number | null {
  const [program, script, ...args] = command;
  expect(program).toBe('node');
  expect(script).toBe('/app/healthcheck.mjs');
  return spawnSync(process.execPath, [join(root, 'deploy', 'healthcheck.mjs'), ...args], { env: { ...process.env, GATEWAY_PORT: port } }).status;
}

let upstream: MockUpstream;
let dataDir: string;
let pat: string;
let secret: { name: string; data: Record<string, string> };
let sidecarEnv: Record<string, string>;

beforeAll(async () => {
  assertBuilt();
  upstream = await new MockUpstream().start();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-k8s-'));
  pat = generateDocumentedToken();
  secret = documentedSecret({ PAT: pat, OPENAI_API_KEY: 'sk-provider-key' });
  sidecarEnv = {
    ...containerEnv(sidecarSpec, secret),
    // Where a pod differs: its volume, its fixed ports, the real provider.
    DATA_DIR: dataDir,
    GATEWAY_PORT: '0',
    AUTH_PORT: '0',
    UPSTREAM_BASE_URL: upstream.url,
  };
});
afterAll(async () => {
  await upstream.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startSidecar(): Promise<{ stop: () => Promise<number | null>; output: () => string; port: string; url: string }> {
  const { child, output, match } = await startCliService(['gateway'], sidecarEnv, /API and proxy on (http:\/\/[\d.:]+)/);
  const url = match[1] as string;
  return { stop: () => (child.kill('SIGTERM'), waitExit(child)), output, port: new URL(url).port, url };
}

/** The agent container: the official SDK, given OPENAI_BASE_URL and OPENAI_API_KEY from its environment, nothing else. */
async function agentCall(sidecarUrl: string) {
  const env = containerEnv(agentSpec, secret);
  expect(Object.keys(env).sort()).toEqual(['OPENAI_API_KEY', 'OPENAI_BASE_URL']);
  const baseURL = (env['OPENAI_BASE_URL'] as string).replace('http://127.0.0.1:8080', sidecarUrl);
  const client = new OpenAI({ baseURL, apiKey: env['OPENAI_API_KEY'], maxRetries: 0 });
  return client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }).withResponse();
}

describe('the Kubernetes sidecar example, first start (docs/sidecar.md)', () => {
  it('the documented one-liner makes a well-formed PAT, a new one each time', () => {
    expect(isWellFormedToken(pat, 'pat')).toBe(true);
    expect(generateDocumentedToken()).not.toBe(pat);
  });

  it('provisions the tenant and the Secret\'s token on an empty volume, logs neither the token nor its hash, and the agent\'s first call goes through', async () => {
    const sidecar = await startSidecar();
    let output: string;
    try {
      const probe = sidecarSpec?.startupProbe?.exec?.command ?? [];
      expect(runProbe(probe, sidecar.port), 'the startup probe passes').toBe(0);

      upstream.reset();
      const { data, response } = await agentCall(sidecar.url);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-svc-verdict')).toBe('ALLOWED');
      expect(data.choices[0]?.message.content).toBeTruthy();
      expect(upstream.received[0]?.headers['authorization']).toBe('Bearer sk-provider-key');

      // No admin token made, printed or written: the operator's token is the only one.
      expect(existsSync(join(dataDir, 'bootstrap-admin.token'))).toBe(false);
      const tokens = await runCli(['token', 'list', '--tenant', sidecarEnv['BOOTSTRAP_TENANT'] as string], sidecarEnv);
      expect(tokens.code).toBe(0);
      expect(tokens.stdout.match(/provisioned/g)).toHaveLength(1);
    } finally {
      // Log lines are written in batches (flushed within a second, and at exit): read them once it has stopped.
      expect(await sidecar.stop()).toBe(0);
      output = sidecar.output();
    }
    expect(output).toContain('provisioned token (BOOTSTRAP_TOKEN)');
    expect(output).not.toContain(pat);
    expect(output).not.toContain(hashToken(pat));
  });

  it('a restart on the same volume provisions nothing again and the token keeps working', async () => {
    const sidecar = await startSidecar();
    try {
      expect((await agentCall(sidecar.url)).response.status).toBe(200);
      const tokens = await runCli(['token', 'list', '--tenant', sidecarEnv['BOOTSTRAP_TENANT'] as string], sidecarEnv);
      expect(tokens.stdout.match(/provisioned/g)).toHaveLength(1);
    } finally {
      expect(await sidecar.stop()).toBe(0);
    }
    expect(sidecar.output()).not.toContain('provisioned token');
  });

  it('a Secret whose token is not a PAT stops start-up naming the setting, never echoing the value', async () => {
    const bad = 'adu_pat_replace_me_with_a_generated_token';
    const r = await runCli(['gateway'], { ...sidecarEnv, DATA_DIR: join(dataDir, 'bad'), BOOTSTRAP_TOKEN: bad });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('BOOTSTRAP_TOKEN');
    expect(r.stdout + r.stderr).not.toContain(bad);
  });
});
