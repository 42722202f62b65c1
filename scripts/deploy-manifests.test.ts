import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { Pod, PersistentVolumeClaim, Secret } from 'kubernetes-models/v1';

/**
 * The deploy/ files are checked as a cluster and a container runtime would read them: the Kubernetes objects against
 * the API's JSON Schemas, and the rules that made the first sidecar manifest fail to start (a non-numeric user under
 * runAsNonRoot, a probe on an address the gateway does not listen on, an unwritable data volume, a claim never made).
 */
const root = new URL('..', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), 'utf8');

const MODELS = { Pod, PersistentVolumeClaim, Secret } as const;
type Obj = { apiVersion: string; kind: keyof typeof MODELS; metadata: { name: string }; spec?: Record<string, unknown> };

interface ContainerSpec {
  name: string;
  env?: { name: string; value?: string }[];
  readinessProbe?: Record<string, unknown>;
  livenessProbe?: Record<string, unknown>;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  securityContext?: { runAsUser?: number; fsGroup?: number };
  containers: ContainerSpec[];
  volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[];
}

describe('deploy/kubernetes/agent-with-sidecar.yaml', () => {
  const objects = parseAllDocuments(read('deploy/kubernetes/agent-with-sidecar.yaml')).map((d) => d.toJSON() as Obj);
  const pod = objects.find((o) => o.kind === 'Pod')!;
  const spec = pod.spec as unknown as PodSpec;
  const sidecar = spec.containers.find((c) => c.name === 'aduana')!;

  it('every object is valid against the Kubernetes API schema', () => {
    expect(objects.map((o) => o.kind).sort()).toEqual(['PersistentVolumeClaim', 'Pod', 'Secret']);
    for (const o of objects) {
      const Model = MODELS[o.kind];
      expect(() => new Model(o as never).validate(), `${o.kind} ${o.metadata.name}`).not.toThrow();
    }
  });

  it('runs as a numeric non-root user, with the data volume writable for it', () => {
    expect(sidecar.securityContext?.runAsNonRoot).toBe(true);
    const uid = sidecar.securityContext?.runAsUser ?? spec.securityContext?.runAsUser;
    expect(Number.isInteger(uid) && (uid as number) > 0).toBe(true);
    expect(spec.securityContext?.fsGroup).toBe(uid);
    // The image's own user is numeric too, so runAsNonRoot can be checked against it without runAsUser.
    expect(read('deploy/Dockerfile')).toMatch(/^USER \d+(:\d+)?$/m);
  });

  it('probes the gateway where it listens: inside the container when it binds loopback', () => {
    const host = sidecar.env?.find((e) => e.name === 'HOST')?.value;
    expect(host).toBe('127.0.0.1');
    for (const probe of [sidecar.readinessProbe, sidecar.livenessProbe]) {
      if (!probe) continue;
      expect(probe['httpGet'], 'the kubelet probes the pod address, which a loopback-bound gateway never answers').toBeUndefined();
      expect(probe['tcpSocket']).toBeUndefined();
      expect(probe['exec']).toBeDefined();
    }
    expect(sidecar.readinessProbe).toBeDefined();
  });

  it('every volume claim it mounts is defined beside it', () => {
    const claims = new Set(objects.filter((o) => o.kind === 'PersistentVolumeClaim').map((o) => o.metadata.name));
    const used = (spec.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : []));
    expect(used.length).toBeGreaterThan(0);
    for (const name of used) expect(claims.has(name), name).toBe(true);
    expect(sidecar.volumeMounts?.some((m) => m.mountPath === '/data')).toBe(true);
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
    type Dep = { kind: string; metadata: { name: string }; spec: { template: { spec: PodSpec & { containers: (ContainerSpec & { args?: string[]; env?: { name: string; value?: string; valueFrom?: unknown }[] })[] } } } };
    const objects = parseAllDocuments(read('deploy/kubernetes/fleet.yaml')).map((d) => d.toJSON() as Dep);
    for (const o of objects) expect(() => new models[o.kind]!(o as never).validate(), `${o.kind} ${o.metadata.name}`).not.toThrow();
    const control = objects.find((o) => o.metadata.name === 'aduana-control' && o.kind === 'Deployment')!;
    expect(control.spec.template.spec.containers[0]!.args).toEqual(['control']);
    const agent = objects.find((o) => o.metadata.name === 'support-agent')!;
    const sidecar = agent.spec.template.spec.containers.find((c) => c.name === 'aduana')!;
    const env = new Map(sidecar.env!.map((e) => [e.name, e as { name: string; value?: string; valueFrom?: unknown }]));
    expect(env.get('CONTROL_PLANE_URL')?.value).toMatch(/^http:\/\/aduana-control\./);
    expect(env.get('SIDECAR_TOKEN')?.valueFrom).toBeDefined();
    expect(env.get('HOST')?.value).toBe('127.0.0.1');
    expect(sidecar.readinessProbe?.['exec']).toBeDefined();
  });
});
