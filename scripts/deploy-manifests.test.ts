import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { Secret } from 'kubernetes-models/v1';
import { StatefulSet } from 'kubernetes-models/apps/v1';

/**
 * The deploy/ files are checked as a cluster and a container runtime would read them: the Kubernetes objects against
 * the API's JSON Schemas, and the rules that made the first sidecar manifests fail (a non-numeric user under
 * runAsNonRoot, a probe on an address the gateway does not listen on, an unwritable data volume, a claim never made,
 * a token in the Secret the sidecar had never heard of, an agent started before its proxy).
 * gateway/test/kubernetes-first-start.test.ts starts what the sidecar manifest describes.
 */
const root = new URL('..', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Probe {
  exec?: { command: string[] };
  httpGet?: unknown;
  tcpSocket?: unknown;
}
interface ContainerSpec {
  name: string;
  image: string;
  args?: string[];
  restartPolicy?: string;
  env?: EnvVar[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  securityContext?: { runAsUser?: number; fsGroup?: number };
  initContainers?: ContainerSpec[];
  containers: ContainerSpec[];
  volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[];
}

/** The image's health check, as its Dockerfile runs it: the probes run the same command. */
function imageHealthcheck(dockerfile: string): string[] {
  const m = /^HEALTHCHECK .*CMD (\[.*\])$/m.exec(read(dockerfile));
  if (!m) throw new Error(`${dockerfile} has no HEALTHCHECK`);
  return JSON.parse(m[1] as string) as string[];
}

/** The Secret docs/sidecar.md has the reader make: `kubectl create secret generic NAME --from-literal=KEY=…`. */
function documentedSecret(): { name: string; keys: string[] } {
  const m = /kubectl create secret generic (\S+)((?: --from-literal=\w+=\S+)+)/.exec(read('docs/sidecar.md'));
  if (!m) throw new Error('docs/sidecar.md shows no `kubectl create secret generic` command');
  return { name: m[1] as string, keys: [...(m[2] as string).matchAll(/--from-literal=(\w+)=/g)].map((k) => k[1] as string) };
}

describe('deploy/kubernetes/agent-with-sidecar.yaml', () => {
  const objects = parseAllDocuments(read('deploy/kubernetes/agent-with-sidecar.yaml')).map((d) => d.toJSON() as { kind: string; metadata: { name: string }; spec: Record<string, unknown> });
  const set = objects.find((o) => o.kind === 'StatefulSet') ?? { kind: 'StatefulSet', metadata: { name: '(none)' }, spec: {} };
  const spec = (set.spec as { template?: { spec: PodSpec } }).template?.spec ?? { containers: [] };
  const sidecar = spec.initContainers?.find((c) => c.name === 'aduana');
  const agent = spec.containers.find((c) => c.name === 'agent') ?? { name: 'agent', image: '' };
  const env = (c: ContainerSpec) => new Map((c.env ?? []).map((e) => [e.name, e]));

  it('is one StatefulSet, valid against the Kubernetes API schema (the Secret is made with kubectl, as documented)', () => {
    expect(objects.map((o) => o.kind)).toEqual(['StatefulSet']);
    expect(() => new StatefulSet(set as never).validate()).not.toThrow();
  });

  it('runs the gateway as a native sidecar: an init container that keeps running, started before the agent', () => {
    expect(sidecar, 'the gateway is an init container').toBeDefined();
    expect(sidecar!.restartPolicy).toBe('Always');
    expect(spec.containers.map((c) => c.name)).toEqual(['agent']);
    expect(sidecar!.image).toMatch(/\/aduana-gateway:/);
    expect(sidecar!.args).toEqual(['gateway']);
  });

  it('probes the gateway where it listens, with the image\'s own health check: a startup probe holds the agent back', () => {
    expect(env(sidecar!).get('HOST')?.value).toBe('127.0.0.1');
    const check = imageHealthcheck('deploy/gateway.Dockerfile');
    for (const probe of [sidecar!.startupProbe, sidecar!.readinessProbe]) {
      expect(probe, 'startup and readiness probes').toBeDefined();
      expect(probe!.httpGet, 'the kubelet probes the pod address, which a loopback-bound gateway never answers').toBeUndefined();
      expect(probe!.tcpSocket).toBeUndefined();
      expect(probe!.exec?.command).toEqual(check);
    }
  });

  it('keeps the ledger on a volume claim per replica that outlives the pod', () => {
    const s = set.spec as { volumeClaimTemplates?: { metadata: { name: string } }[]; persistentVolumeClaimRetentionPolicy?: Record<string, string> };
    const claims = (s.volumeClaimTemplates ?? []).map((t) => t.metadata.name);
    const data = sidecar!.volumeMounts?.find((m) => m.mountPath === '/data');
    expect(data && claims.includes(data.name), 'the /data mount is a volumeClaimTemplate').toBe(true);
    expect(env(sidecar!).get('DATA_DIR')?.value).toBe('/data');
    expect(s.persistentVolumeClaimRetentionPolicy).toEqual({ whenDeleted: 'Retain', whenScaled: 'Retain' });
  });

  it('runs as a numeric non-root user, with the data volume writable for it', () => {
    expect(sidecar!.securityContext?.runAsNonRoot).toBe(true);
    const uid = sidecar!.securityContext?.runAsUser ?? spec.securityContext?.runAsUser;
    expect(Number.isInteger(uid) && (uid as number) > 0).toBe(true);
    expect(spec.securityContext?.fsGroup).toBe(uid);
    // The image's own user is numeric too, so runAsNonRoot can be checked against it without runAsUser.
    expect(read('deploy/gateway.Dockerfile')).toMatch(/^USER \d+(:\d+)?$/m);
  });

  it('provisions the agent\'s token from the Secret it reads too, bound to the agent; the agent sets only base URL and key', () => {
    const secret = documentedSecret();
    const refs = [sidecar!, agent].flatMap((c) => (c.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef] : [])));
    for (const ref of refs) {
      expect(ref.name).toBe(secret.name);
      expect(secret.keys, `the documented Secret has ${ref.key}`).toContain(ref.key);
    }
    const s = env(sidecar!);
    expect(s.get('BOOTSTRAP_TOKEN')?.valueFrom?.secretKeyRef).toEqual(env(agent).get('OPENAI_API_KEY')?.valueFrom?.secretKeyRef);
    expect(s.get('BOOTSTRAP_TOKEN_AGENT')?.value).toBeTruthy();
    expect([...env(agent).keys()].sort()).toEqual(['OPENAI_API_KEY', 'OPENAI_BASE_URL']);
    expect(env(agent).get('OPENAI_BASE_URL')?.value).toBe('http://127.0.0.1:8080/v1/proxy');
  });

  it('the documented Secret is valid as kubectl would make it', () => {
    const secret = documentedSecret();
    const obj = { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret.name }, type: 'Opaque', stringData: Object.fromEntries(secret.keys.map((k) => [k, 'x'])) };
    expect(() => new Secret(obj).validate()).not.toThrow();
  });
});

describe('deploy/compose.yaml and the image build context', () => {
  it('every service has a healthcheck', () => {
    const compose = parse(read('deploy/compose.yaml')) as { services: Record<string, { healthcheck?: { test: string[] } }> };
    expect(Object.keys(compose.services).sort()).toEqual(['gateway', 'scanner']);
    for (const [name, svc] of Object.entries(compose.services)) expect(svc.healthcheck?.test.length, name).toBeGreaterThan(0);
  });

  it('.dockerignore keeps the data directory (bootstrap secrets) and node_modules out of the build context', () => {
    const lines = read('.dockerignore').split('\n').map((l) => l.trim());
    expect(lines).toContain('data');
    expect(lines).toContain('**/data');
    expect(lines).toContain('**/node_modules');
  });
});

describe('the fleet files: deploy/compose-fleet.yaml and deploy/kubernetes/fleet.yaml', () => {
  it('compose: PostgreSQL, Redis, a control plane on DATABASE_URL and sidecars pointing at it, each with a healthcheck', () => {
    type Svc = { command?: string[]; environment?: Record<string, string>; healthcheck?: { test: string[] } };
    const compose = parse(read('deploy/compose-fleet.yaml'), { merge: true }) as { services: Record<string, Svc> };
    const s = compose.services;
    expect(Object.keys(s).sort()).toEqual(['control', 'postgres', 'redis', 'sidecar-a', 'sidecar-b']);
    for (const [name, svc] of Object.entries(s)) expect(svc.healthcheck?.test.length, name).toBeGreaterThan(0);
    expect(s['control']!.command).toEqual(['control']);
    expect(s['control']!.environment?.['DATABASE_URL']).toMatch(/^postgres:\/\/.+@postgres:5432\//);
    for (const name of ['sidecar-a', 'sidecar-b']) {
      expect(s[name]!.command).toEqual(['gateway']);
      expect(s[name]!.environment?.['CONTROL_PLANE_URL']).toBe('http://control:8080');
      expect(s[name]!.environment?.['REDIS_URL']).toBe('redis://redis:6379');
      expect(s[name]!.environment?.['SIDECAR_TOKEN']).toBeDefined();
    }
  });

  it('kubernetes: valid objects; the sidecar points at the control plane service and takes its token from a secret', async () => {
    const { Deployment } = await import('kubernetes-models/apps/v1');
    const { Service } = await import('kubernetes-models/v1');
    const models: Record<string, { new (o: never): { validate(): void } }> = { Deployment, Service, Secret };
    type Dep = { kind: string; metadata: { name: string }; spec: { template: { spec: PodSpec } } };
    const objects = parseAllDocuments(read('deploy/kubernetes/fleet.yaml')).map((d) => d.toJSON() as Dep);
    for (const o of objects) expect(() => new models[o.kind]!(o as never).validate(), `${o.kind} ${o.metadata.name}`).not.toThrow();
    const control = objects.find((o) => o.metadata.name === 'aduana-control' && o.kind === 'Deployment')!;
    expect(control.spec.template.spec.containers[0]!.args).toEqual(['control']);
    const agent = objects.find((o) => o.metadata.name === 'support-agent')!;
    const sidecar = agent.spec.template.spec.initContainers!.find((c) => c.name === 'aduana')!;
    expect(sidecar.restartPolicy, 'a native sidecar').toBe('Always');
    const env = new Map(sidecar.env!.map((e) => [e.name, e]));
    expect(env.get('CONTROL_PLANE_URL')?.value).toMatch(/^http:\/\/aduana-control\./);
    expect(env.get('SIDECAR_TOKEN')?.valueFrom).toBeDefined();
    expect(env.get('HOST')?.value).toBe('127.0.0.1');
    expect(sidecar.startupProbe?.exec?.command).toEqual(imageHealthcheck('deploy/gateway.Dockerfile'));
    expect(sidecar.readinessProbe?.exec?.command).toEqual(imageHealthcheck('deploy/gateway.Dockerfile'));
  });
});
