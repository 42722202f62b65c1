/**
 * Checks REDIS_URL at start-up: `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS). A malformed value
 * stops the start with a message naming the setting, rather than a gateway that silently counts per process.
 */
export function parseRedisUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`REDIS_URL: not a URL (expected redis://host:port or rediss://host:port)`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new Error(`REDIS_URL: scheme ${url.protocol} is not redis: or rediss: (expected redis://host:port)`);
  }
  if (url.hostname === '') throw new Error('REDIS_URL: no host (expected redis://host:port)');
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,2}$/.test(db)) throw new Error(`REDIS_URL: database "${db}" is not a number`);
  return url;
}
