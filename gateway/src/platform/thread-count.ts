import { usableCores } from './usable-cores.js';

/**
 * How many threads take the agents' port's connections (GATEWAY_THREADS): the number set, or with 0 (the default)
 * the cores the process may use (its CPUs, capped by its cgroup's quota). One, the main thread alone, where request
 * threads cannot serve (`threaded` false: no agents' port, or the calls need what only the main thread holds).
 */
export function gatewayThreadCount(setting: number, threaded: boolean, cores: () => number = usableCores): number {
  if (!threaded) return 1;
  if (setting > 0) return setting;
  return Math.max(1, cores());
}
