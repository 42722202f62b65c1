import { createHmac, hkdfSync } from 'node:crypto';
import { isoTime, secretBoxFrom, type SecretBox } from '@aduana/shared';
import type { Database } from 'lmdb';
import { GatewayError } from '../errors.js';
import type { Actor, RecordAdminAction } from '../governance/admin-actions.js';
import type { CredentialResolver } from '../proxy/routing/route-spec.js';
import { CREDENTIAL_ENV_PREFIX, CREDENTIAL_NAME_RULE, credentialEnvVariable, environmentCredentials, isCredentialName } from './credential-names.js';

/** The largest secret stored, in UTF-8 bytes: room for a service account's JSON key, not for a document. */
export const CREDENTIAL_SECRET_MAX_BYTES = 16 * 1024;

/** A credential as stored: its secret sealed, and the keyed digest its changes are chained with. */
interface CredentialRecord {
  sealed: Uint8Array;
  digest: string;
  created_at: string;
  updated_at: string;
  updated_by: string;
}

/** What the API and the CLI show of a credential: never its secret, nor its digest. */
export type CredentialView =
  | { readonly name: string; readonly source: 'stored'; readonly created_at: string; readonly updated_at: string; readonly updated_by: string }
  | { readonly name: string; readonly source: 'environment'; readonly variable: string };

export type StoredCredentialView = Extract<CredentialView, { source: 'stored' }>;

/** Binds a sealed secret to its tenant and name: copied onto another record, it does not open. */
function associated(tenantId: string, name: string): string {
  return `aduana.provider-credential.v1\u0000${tenantId}\u0000${name}`;
}

/** The digest key is derived, not the sealing key itself: one key's use never serves as the other's. */
const DIGEST_INFO = 'aduana.provider-credential.digest.v1';

function storedView(name: string, r: CredentialRecord): StoredCredentialView {
  return { name, source: 'stored', created_at: r.created_at, updated_at: r.updated_at, updated_by: r.updated_by };
}

/** What the ledger's before/after digests cover: the name and the keyed digest of the secret, nothing else. */
function chainedView(name: string, r: CredentialRecord): { name: string; secret_digest: string } {
  return { name, secret_digest: r.digest };
}

export function checkCredentialName(name: string): void {
  if (!isCredentialName(name)) throw new GatewayError('invalid_request', `name: ${CREDENTIAL_NAME_RULE}`);
}

/** A secret is a non-empty string of at most CREDENTIAL_SECRET_MAX_BYTES; the message never quotes it. */
export function checkCredentialSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== 'string' || secret === '' || Buffer.byteLength(secret, 'utf8') > CREDENTIAL_SECRET_MAX_BYTES) {
    throw new GatewayError('invalid_request', `secret: a non-empty string of at most ${CREDENTIAL_SECRET_MAX_BYTES} bytes`);
  }
}

/**
 * A tenant's provider credentials (docs/routing.md, "Provider credentials"): each secret sealed with AES-256-GCM under
 * CREDENTIALS_KEY, bound to its tenant and name, in LMDB under [tenant id, name]; and the process's
 * ADUANA_CREDENTIAL_<NAME> variables, which every tenant may name and a tenant's stored credential of that name
 * overrides. Nothing is cached in clear: a secret is opened when it is resolved, so a change made by the CLI (another
 * process on the same data dir) is seen at once.
 */
export class CredentialStore implements CredentialResolver {
  readonly #box: SecretBox | undefined;
  readonly #digestKey: Buffer | undefined;
  /** variable -> value, read once: a pod's environment does not change while it runs. */
  readonly #environment: ReadonlyMap<string, string>;
  readonly #listed: readonly { name: string; variable: string }[];
  #writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Database,
    keyHex: string,
    env: Readonly<Record<string, string | undefined>> = process.env,
  ) {
    this.#box = secretBoxFrom(keyHex, 'credentialsKey', 'CREDENTIALS_KEY');
    this.#digestKey = this.#box ? Buffer.from(hkdfSync('sha256', Buffer.from(keyHex, 'hex'), Buffer.alloc(0), DIGEST_INFO, 32)) : undefined;
    const vars = new Map<string, string>();
    for (const [k, v] of Object.entries(env)) if (k.startsWith(CREDENTIAL_ENV_PREFIX) && v) vars.set(k, v);
    this.#environment = vars;
    this.#listed = environmentCredentials(env);
  }

  /** Whether CREDENTIALS_KEY is set: without it nothing can be stored, and stored secrets do not open. */
  get keyed(): boolean {
    return this.#box !== undefined;
  }

  /**
   * The secret a name stands for in a tenant: its stored credential, else the environment's. A stored one that does
   * not open (another CREDENTIALS_KEY, or none) resolves to nothing rather than to the environment's: the tenant set
   * it to be used instead.
   */
  resolve(tenantId: string, name: string): string | null {
    if (!isCredentialName(name)) return null;
    const r = this.#record(tenantId, name);
    if (r === undefined) return this.#environment.get(credentialEnvVariable(name)) ?? null;
    if (this.#box === undefined) return null;
    try {
      return this.#box.openBytes(Buffer.from(r.sealed), associated(tenantId, name)).toString('utf8');
    } catch {
      return null;
    }
  }

  has(tenantId: string, name: string): boolean {
    return this.resolve(tenantId, name) !== null;
  }

  /** The tenant's stored credentials, then the environment's not overridden by one of the same name; by name. */
  list(tenantId: string): CredentialView[] {
    const out: CredentialView[] = [];
    const stored = new Set<string>();
    for (const { key, value } of this.db.getRange({ start: [tenantId], end: [tenantId, '\uffff'] })) {
      const name = (key as [string, string])[1];
      stored.add(name);
      out.push(storedView(name, value as CredentialRecord));
    }
    for (const e of this.#listed) {
      if (!stored.has(e.name)) out.push({ name: e.name, source: 'environment', variable: e.variable });
    }
    return out;
  }

  /**
   * Stores a secret (replacing the name's current one: a rotation), then chains `credential.set` or
   * `credential.rotated` in the tenant's ledger with the name and keyed digests only. Refused before anything changes
   * for a bad name or secret (400) or without CREDENTIALS_KEY (503).
   */
  async set(tenantId: string, name: string, secret: unknown, actor: Actor, traceId: string, onAdminAction: RecordAdminAction): Promise<{ credential: StoredCredentialView; rotated: boolean }> {
    checkCredentialName(name);
    checkCredentialSecret(secret);
    const box = this.#box;
    if (box === undefined) throw new GatewayError('credentials_key_missing');
    return this.#serially(async () => {
      const before = this.#record(tenantId, name);
      const now = isoTime(Date.now());
      const next: CredentialRecord = {
        sealed: box.sealBytes(secret, associated(tenantId, name)),
        digest: this.#digest(tenantId, name, secret),
        created_at: before?.created_at ?? now,
        updated_at: now,
        updated_by: actor.by,
      };
      await this.db.put([tenantId, name], next);
      const action = before ? 'credential.rotated' : 'credential.set';
      await onAdminAction(tenantId, { actor, action, target: name, before: before ? chainedView(name, before) : null, after: chainedView(name, next) }, traceId);
      return { credential: storedView(name, next), rotated: before !== undefined };
    });
  }

  /** Removes a tenant's stored credential (no key needed) and chains `credential.deleted`; 404 when none is stored. */
  async delete(tenantId: string, name: string, actor: Actor, traceId: string, onAdminAction: RecordAdminAction): Promise<void> {
    checkCredentialName(name);
    return this.#serially(async () => {
      const before = this.#record(tenantId, name);
      if (before === undefined) throw new GatewayError('not_found', this.#notStored(name));
      await this.db.remove([tenantId, name]);
      await onAdminAction(tenantId, { actor, action: 'credential.deleted', target: name, before: chainedView(name, before), after: null }, traceId);
    });
  }

  #notStored(name: string): string {
    const variable = credentialEnvVariable(name);
    return this.#environment.has(variable)
      ? `credential ${name} is not stored for this tenant: it comes from the environment (${variable}), removed there`
      : `credential ${name} is not stored for this tenant`;
  }

  #record(tenantId: string, name: string): CredentialRecord | undefined {
    return this.db.get([tenantId, name]) as CredentialRecord | undefined;
  }

  /**
   * HMAC-SHA256 of the secret under a key derived from CREDENTIALS_KEY, bound to tenant and name: it shows that a
   * secret changed (or which one it was, to whoever holds the key and the secret) without letting anyone who reads the
   * ledger guess a short secret offline, as a plain hash would.
   */
  #digest(tenantId: string, name: string, secret: string): string {
    return createHmac('sha256', this.#digestKey!).update(`${tenantId}\u0000${name}\u0000${secret}`).digest('hex');
  }

  /** One change at a time: each one's `before` is the previous one's `after`, in the ledger as in the store. */
  #serially<T>(change: () => Promise<T>): Promise<T> {
    const run = this.#writes.then(change);
    this.#writes = run.catch(() => undefined);
    return run;
  }
}
