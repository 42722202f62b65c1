/**
 * Whether a path matches a registered route pattern under some method (`:param` matches any one segment): a 405 for
 * another method rather than a 404. Runs only on the fallback route.
 */
export function matchesKnownPath(patterns: Iterable<string>, url: string): boolean {
  const segs = url.split('/');
  for (const pattern of patterns) {
    const p = pattern.split('/');
    if (p.length !== segs.length) continue;
    if (p.every((s, i) => s.startsWith(':') || s === segs[i])) return true;
  }
  return false;
}
