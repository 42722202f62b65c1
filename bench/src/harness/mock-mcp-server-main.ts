/** Runs the benchmark's mock MCP server as its own process (like a real server, it is not in the client's process). */
import { startMockMcpServer } from './mock-mcp-server.js';

const server = await startMockMcpServer(Number(process.argv[2] ?? 0));
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
