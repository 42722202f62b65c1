/** Runs the floor relay as its own process (like the gateway): `node relay-main.js <upstream base URL>`. */
import { startRelay } from './relay.js';

const relay = await startRelay(process.argv[2] ?? 'http://127.0.0.1:1/v1');
process.stdout.write(`${relay.url}\n`);
process.on('SIGTERM', () => {
  void relay.close().then(() => process.exit(0));
});
