import type { HttpServer } from '../http/server.js';
import { HEALTH_PATHS } from '../http/health-paths.js';
import type { GatewayDeps } from '../gateway-deps.js';
import type { SidecarMode } from '../fleet/sidecar/sidecar-mode.js';

/** `/health` (and `/healthz`); a sidecar adds its control plane and the revision and age of the bundle in force (docs/fleet.md). */
export function registerHealthRoutes(server: HttpServer, _deps: GatewayDeps, sidecar: SidecarMode | null = null): void {
  for (const path of HEALTH_PATHS) {
    if (sidecar) server.route('get', path, { auth: 'public', body: 'none' }, () => ({ status: 200, body: { status: 'ok', service: 'aduana-gateway', fleet: sidecar.health() } }));
    else server.route('get', path, { auth: 'public', body: 'none' }, () => ({ status: 200, body: { status: 'ok', service: 'aduana-gateway' } }));
  }
}
