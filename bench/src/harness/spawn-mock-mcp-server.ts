import { fileURLToPath } from 'node:url';
import { spawnUrlChild } from './spawn-url-child.js';

const MAIN = fileURLToPath(new URL('./mock-mcp-server-main.js', import.meta.url));

/** The mock MCP server in a child process; resolves with its endpoint's URL. */
export function spawnMockMcpServer(port = 0): Promise<{ url: string; stop(): void }> {
  return spawnUrlChild(MAIN, [String(port)], 'mock MCP server');
}
