import { generateToken, hashToken, isWellFormedToken, uuid } from '@aduana/shared';
import type { KeyRecord, OrgRecord, ScannerStore } from '../storage/scanner-store.js';

/** Who a request's key is: what the KEY routes are given (docs/scanner.md, "Keys and organisations"). */
export interface KeyIdentity {
  readonly keyId: string;
  readonly orgId: string;
}

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  readonly key: string;
  readonly id: string;
  readonly org: OrgRecord;
}

/** The organisation of that name, created when absent (in the same write transaction as the lookup). */
export async function ensureOrg(store: ScannerStore, name: string): Promise<OrgRecord> {
  let org: OrgRecord | undefined;
  await store.root.transaction(() => {
    const id = store.orgNames.get(name);
    org = id === undefined ? undefined : store.orgs.get(id);
    if (org !== undefined) return;
    org = { id: uuid(), name, createdAt: new Date().toISOString() };
    void store.orgs.put(org.id, org);
    void store.orgNames.put(name, org.id);
  });
  return org as unknown as OrgRecord;
}

/** Issues an `adu_sk_` key for the organisation `orgName` (created if new); only its hash is stored. */
export async function issueKey(store: ScannerStore, orgName: string): Promise<IssuedKey> {
  const org = await ensureOrg(store, orgName);
  const key = generateToken('sk');
  const record: KeyRecord = { id: uuid(), orgId: org.id, hash: hashToken(key), hint: key.slice(0, 12), createdAt: new Date().toISOString(), revokedAt: null };
  await store.root.transaction(() => {
    void store.keys.put(record.id, record);
    void store.keyHashes.put(record.hash, record.id);
  });
  return { key, id: record.id, org };
}

export interface KeyListing extends Omit<KeyRecord, 'hash'> {
  readonly org: string;
}

export function listKeys(store: ScannerStore): KeyListing[] {
  const out: KeyListing[] = [];
  for (const { value } of store.keys.getRange()) {
    const { hash: _hash, ...rest } = value;
    out.push({ ...rest, org: store.orgs.get(value.orgId)?.name ?? value.orgId });
  }
  return out;
}

/** Revokes a key by id; false when there is no such key. Idempotent: a revoked key keeps its first revocation time. */
export async function revokeKey(store: ScannerStore, id: string): Promise<boolean> {
  let found = false;
  await store.root.transaction(() => {
    const key = store.keys.get(id);
    if (key === undefined) return;
    found = true;
    if (key.revokedAt === null) void store.keys.put(id, { ...key, revokedAt: new Date().toISOString() });
  });
  return found;
}

/**
 * The identity behind a presented key, or undefined when it is malformed, unknown or revoked. Read from LMDB on
 * every call, never cached: a revocation by another process (the CLI) takes effect on the next request. Two
 * memory-mapped reads; the checksum refuses mistyped or random keys before any lookup.
 */
export function verifyKey(store: ScannerStore, presented: string): KeyIdentity | undefined {
  if (!isWellFormedToken(presented, 'sk')) return undefined;
  const id = store.keyHashes.get(hashToken(presented));
  if (id === undefined) return undefined;
  const key = store.keys.get(id);
  if (key === undefined || key.revokedAt !== null) return undefined;
  return { keyId: key.id, orgId: key.orgId };
}
