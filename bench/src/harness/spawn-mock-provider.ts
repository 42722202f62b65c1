import { fileURLToPath } from 'node:url';
import { spawnUrlChild } from './spawn-url-child.js';

const MAIN = fileURLToPath(new URL('./mock-provider-main.js', import.meta.url));

/** The mock provider in a child process; resolves with its base URL. */
export function spawnMockProvider(port = 0): Promise<{ url: string; stop(): void }> {
  return spawnUrlChild(MAIN, [String(port)], 'mock provider');
}
