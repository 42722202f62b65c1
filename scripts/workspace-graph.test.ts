import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const SERVICES = ['gateway', 'scanner'] as const;

function manifest(dir: string): { dependencies?: Record<string, string>; devDependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.(ts|mts|js|mjs)$/.test(name)) out.push(p);
  }
  return out;
}

const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g;

describe('the workspace dependency graph', () => {
  it('each service depends on shared and its libraries only, never on the other service', () => {
    for (const svc of SERVICES) {
      const m = manifest(svc);
      const workspaceDeps = Object.keys({ ...m.dependencies, ...m.devDependencies }).filter((d) => d.startsWith('@aduana/'));
      expect(workspaceDeps, svc).toEqual(['@aduana/shared']);
      const refs = (JSON.parse(readFileSync(join(root, svc, 'tsconfig.json'), 'utf8')) as { references: { path: string }[] }).references.map((r) => r.path);
      expect(refs, svc).toEqual(['../shared']);
    }
    expect(Object.keys(manifest('shared').dependencies ?? {}).filter((d) => d.startsWith('@aduana/'))).toEqual([]);
  });

  it('no source or test file of a service imports the other service, by name or by path', () => {
    const offenders: string[] = [];
    for (const svc of SERVICES) {
      const other = SERVICES.find((s) => s !== svc)!;
      for (const dir of ['src', 'test']) {
        if (!existsSync(join(root, svc, dir))) continue;
        for (const file of sources(join(root, svc, dir))) {
          for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
            const spec = m[1]!;
            if (spec.startsWith(`@aduana/${other}`) || spec.includes(`/${other}/`) || spec === '@aduana/bench') offenders.push(`${file}: ${spec}`);
          }
        }
      }
    }
    for (const file of sources(join(root, 'shared', 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) if (/^@aduana\/(gateway|scanner|bench)/.test(m[1]!)) offenders.push(`${file}: ${m[1]}`);
    }
    expect(offenders).toEqual([]);
  });

  it('the agent SDK (@aduana/sdk) has no runtime dependency: its sources import only Node built-ins and its own files', () => {
    const m = JSON.parse(readFileSync(join(root, 'gateway/sdk/package.json'), 'utf8')) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
    expect(Object.keys({ ...m.dependencies, ...m.peerDependencies })).toEqual([]);
    const offenders: string[] = [];
    for (const dir of ['src', 'examples']) {
      for (const file of sources(join(root, 'gateway/sdk', dir))) {
        for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
          const spec = match[1]!;
          // The example imports the SDK by its package name, as an agent would.
          if (!spec.startsWith('./') && !spec.startsWith('node:') && !(dir === 'examples' && spec === '@aduana/sdk')) offenders.push(`${file}: ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
