import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('./mock-provider-main.js', import.meta.url));

/** The mock provider in a child process; resolves with its base URL. */
export async function spawnMockProvider(port = 0): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [MAIN, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(line.trim());
    });
    child.on('exit', (code) => reject(new Error(`mock provider exited (${code})`)));
  });
  return { url, stop: () => void child.kill('SIGTERM') };
}
