import type { HttpServer } from '../http/server.js';
import type { GatewayDeps } from '../gateway-deps.js';

export function registerHealthRoutes(server: HttpServer, _deps: GatewayDeps): void {
  server.route('get', '/health', { scope: null, body: 'none' }, () => ({ status: 200, body: { status: 'ok', service: 'aduana-gateway' } }));
}
