import { fileURLToPath } from 'node:url';
import { spawnUrlChild } from './spawn-url-child.js';

const MAIN = fileURLToPath(new URL('./relay-main.js', import.meta.url));

/** The floor relay in a child process, forwarding to `upstream`; resolves with its base URL and pid. */
export function spawnRelay(upstream: string): Promise<{ url: string; pid: number; stop(): void }> {
  return spawnUrlChild(MAIN, [upstream], 'relay');
}
