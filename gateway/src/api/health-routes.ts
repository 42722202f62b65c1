import type { HttpServer } from '../http/server.js';
import { HEALTH_PATHS } from '../http/health-paths.js';
import type { GatewayDeps } from '../gateway-deps.js';
import type { SidecarMode } from '../fleet/sidecar/sidecar-mode.js';

/**
 * `/health` (and `/healthz`); a sidecar adds its control plane and the revision and age of the bundle in force
 * (docs/fleet.md). 503 once the ledger's writer thread has failed: every call is refused then, and the container's
 * health check should replace the process.
 */
export function registerHealthRoutes(server: HttpServer, deps: GatewayDeps, sidecar: SidecarMode | null = null): void {
  const { ledger } = deps;
  for (const path of HEALTH_PATHS) {
    server.route('get', path, { auth: 'public', body: 'none' }, () => {
      if (!ledger.writable) return { status: 503, body: { status: 'failing', service: 'aduana-gateway', reason: 'the ledger writer thread failed: nothing can be recorded' } };
      return { status: 200, body: sidecar ? { status: 'ok', service: 'aduana-gateway', fleet: sidecar.health() } : { status: 'ok', service: 'aduana-gateway' } };
    });
  }
}
