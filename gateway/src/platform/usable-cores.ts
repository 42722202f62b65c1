import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * The cores this process may use: the CPUs it may run on, capped by its cgroup's CPU quota (a container's CPU limit:
 * Kubernetes' `limits.cpu`, Docker's `--cpus`), rounded up, at least 1. `root` and `self` are where the cgroup
 * file systems and this process's cgroup list are read (tests).
 */
export function usableCores(root = '/sys/fs/cgroup', self = '/proc/self/cgroup'): number {
  const cpus = availableParallelism();
  const quota = cpuQuota(root, self);
  return Math.max(1, quota === null ? cpus : Math.min(cpus, Math.ceil(quota)));
}

/** CPUs the quota allows (1.5 for 150 ms per 100 ms), or null without one. */
function cpuQuota(root: string, self: string): number | null {
  const groups = readText(self)?.split('\n') ?? [];
  // cgroup v2: "0::/path" and cpu.max "<quota|max> <period>", in the process's own group (the root of a container's
  // namespace, else the path in /proc/self/cgroup).
  const v2 = groups.find((line) => line.startsWith('0::'))?.slice(3) ?? '/';
  for (const dir of new Set([`${root}${v2 === '/' ? '' : v2}`, root])) {
    const max = readText(`${dir}/cpu.max`);
    if (max === null) continue;
    const [quota, period] = max.trim().split(/\s+/);
    return quota === 'max' ? null : ratio(Number(quota), Number(period));
  }
  // cgroup v1: cpu.cfs_quota_us (-1: none) over cpu.cfs_period_us, under the cpu controller's path.
  const v1 = groups.find((line) => /^\d+:([^:]*,)?cpu(,[^:]*)?:/.test(line))?.split(':')[2] ?? '/';
  for (const dir of new Set([`${root}/cpu${v1 === '/' ? '' : v1}`, `${root}/cpu`])) {
    const quota = readText(`${dir}/cpu.cfs_quota_us`);
    const period = readText(`${dir}/cpu.cfs_period_us`);
    if (quota !== null && period !== null) return Number(quota) < 0 ? null : ratio(Number(quota), Number(period));
  }
  return null;
}

function ratio(quota: number, period: number): number | null {
  return quota > 0 && period > 0 ? quota / period : null;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
