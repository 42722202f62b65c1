import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { usableCores } from './usable-cores.js';

// A container's CPU limit is a cgroup quota, not fewer CPUs: the gateway sizes its threads by the quota.
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function cgroups(files: Record<string, string>, self: string): { root: string; self: string } {
  const root = mkdtempSync(join(tmpdir(), 'aduana-cgroup-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  writeFileSync(join(root, 'self'), self);
  return { root: join(root, 'fs'), self: join(root, 'self') };
}

const cpus = availableParallelism();

describe('usableCores', () => {
  it('cgroup v2: the quota of the process group, rounded up, never above the CPUs', () => {
    const half = cgroups({ 'fs/cpu.max': '50000 100000\n' }, '0::/\n');
    expect(usableCores(half.root, half.self)).toBe(1);
    const nested = cgroups({ 'fs/kubepods/pod1/cpu.max': '150000 100000\n' }, '0::/kubepods/pod1\n');
    expect(usableCores(nested.root, nested.self)).toBe(Math.min(2, cpus));
    const many = cgroups({ 'fs/cpu.max': '6400000 100000\n' }, '0::/\n');
    expect(usableCores(many.root, many.self)).toBe(cpus);
    const none = cgroups({ 'fs/cpu.max': 'max 100000\n' }, '0::/\n');
    expect(usableCores(none.root, none.self)).toBe(cpus);
  });

  it('cgroup v1: cfs quota over period under the cpu controller; -1 is no limit', () => {
    const one = cgroups({ 'fs/cpu/docker/abc/cpu.cfs_quota_us': '100000\n', 'fs/cpu/docker/abc/cpu.cfs_period_us': '100000\n' }, '4:memory:/docker/abc\n2:cpu,cpuacct:/docker/abc\n');
    expect(usableCores(one.root, one.self)).toBe(1);
    const unlimited = cgroups({ 'fs/cpu/cpu.cfs_quota_us': '-1\n', 'fs/cpu/cpu.cfs_period_us': '100000\n' }, '2:cpu,cpuacct:/\n');
    expect(usableCores(unlimited.root, unlimited.self)).toBe(cpus);
  });

  it('without cgroup files: the CPUs the process may run on', () => {
    const bare = cgroups({}, '');
    expect(usableCores(bare.root, bare.self)).toBe(cpus);
  });
});
