import { aduana } from './cli.js';

/**
 * The tenant every gateway bench measures: `bench`, on the enterprise plan (no plan rate limit in the way), with the
 * paid pack's policies applied; made with the CLI on the running gateway's data dir. Returns an admin token of it.
 */
export async function benchTenant(gw: { url: string; dataDir: string }, name = 'bench'): Promise<string> {
  const env = { DATA_DIR: gw.dataDir };
  aduana(['tenant', 'create', name, '--plan', 'enterprise'], env);
  const token = aduana(['token', 'create', '--tenant', name, '--role', 'admin'], env).trim();
  const r = await fetch(`${gw.url}/v1/policies/apply-pack`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"pack":"RUNTIME_PAID_POLICIES"}' });
  if (!r.ok) throw new Error(`apply-pack: HTTP ${r.status}`);
  return token;
}
