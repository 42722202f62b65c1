/** Runs the benchmark's mock provider as its own process (like a real provider, it is not in the client's process). */
import { startMockProvider } from './mock-provider.js';

const mock = await startMockProvider(Number(process.argv[2] ?? 0));
process.stdout.write(`${mock.url}\n`);
process.on('SIGTERM', () => {
  mock.close();
  process.exit(0);
});
