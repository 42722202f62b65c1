import { usableCores } from './usable-cores.js';

/**
 * How many threads take the API port's connections (GATEWAY_THREADS): the number set, or with 0 (the default) the
 * cores the process may use (its CPUs, capped by its cgroup's quota) where request threads judge calls themselves.
 * Where they could only relay (the ledger's writes inline, a sidecar, limits on Redis), one: a relaying thread parses
 * HTTP for the main thread and costs more than that saves.
 */
export function gatewayThreadCount(setting: number, judging: boolean, cores: () => number = usableCores): number {
  if (setting > 0) return setting;
  return judging ? Math.max(1, cores()) : 1;
}
