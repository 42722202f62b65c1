/**
 * A secret (a password, a provider key) from standard input only: an argument would sit in the shell history and the
 * process list. `prompt` is shown when a person types it.
 */
export async function readSecretInput(prompt: string): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write(`${prompt} (end with Ctrl-D): `);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // One trailing newline is the shell's (`echo … |`), not the secret's.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
