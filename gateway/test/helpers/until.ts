/** Polls `ok` until it holds; past `ms` it throws, naming what it waited for. */
export async function until(ok: () => boolean | Promise<boolean>, what = 'a condition', ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
