import { HttpServer, type ServerOptions } from '../http/server.js';
import { registerAuthRoutes, type AuthServiceDeps } from './auth-service/auth-routes.js';
import { registerConsoleRoutes, type ConsoleDeps } from './console/console-routes.js';
import type { ConsoleData } from './console/console-data.js';
import { consoleSessionGuard } from './console/console-session.js';

/**
 * The authentication service (AUTH_PORT), as the gateway and the control plane serve it: token verification and
 * issuance, sign-in, and the console, whose pages take the signed-in user's session (the `session` guard) and read
 * through `data` (the local decision index, or a control plane's archive). Returns the server, its routes finished.
 */
export function mountAuthService(options: Omit<ServerOptions, 'guards' | 'serviceName'>, auth: AuthServiceDeps, console: ConsoleDeps, data: ConsoleData): HttpServer {
  const server = new HttpServer({ ...options, guards: { session: consoleSessionGuard(auth.authenticator, auth.sessions) }, serviceName: 'auth' });
  registerAuthRoutes(server, auth);
  registerConsoleRoutes(server, console, data);
  return server.finish();
}
