import { HANDLED, type HttpServer } from '../http/server.js';
import { MCP_ROUTE_HEADERS, type McpGateway } from '../mcp/mcp-gateway.js';

const METHODS = [
  ['post', 'POST'],
  ['get', 'GET'],
  ['delete', 'DELETE'],
] as const;

/**
 * The MCP gateway's routes: `/v1/mcp/{name}` for each method of the Streamable HTTP transport, with a PAT that has
 * runtime:write (checked by the server from the head, as on every such route); the gateway answers itself, its
 * refusals included, so that a request from a foreign origin is refused (403) before its credential is judged.
 */
export function registerMcpRoutes(server: HttpServer, mcp: McpGateway): void {
  for (const [route, method] of METHODS) {
    server.route(route, '/v1/mcp/:name', { auth: 'pat', scope: 'runtime:write', refusedBy: 'handler', body: 'none', headers: MCP_ROUTE_HEADERS, agentsCall: 'main-thread' }, (ctx) => mcp.handle(ctx, method).then(() => HANDLED));
  }
}
