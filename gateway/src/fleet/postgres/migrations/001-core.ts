import type { Migration } from './index.js';

/**
 * The control plane's core tables. Columns are typed where they are queried or constrained (ids, keys, unique e-mails
 * and subjects, the tenant's policy_version); the rest of each record is jsonb. Two kinds of notification:
 * - `aduana_rows`, payload `<table>:<key>` (keys only: NOTIFY payloads are capped at 8000 bytes), on every row change,
 *   so each process's in-memory mirror re-reads that row;
 * - `aduana_bundle`, payload the new fleet revision, on every change to what a sidecar's bundle carries (tenants,
 *   tokens, users, policies, agents), bumped in the change's own transaction.
 */
export const migration001Core: Migration = {
  id: '001_core',
  sql: `
CREATE TABLE tenants (
  id text PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL,
  created_at text NOT NULL,
  policy_version integer NOT NULL DEFAULT 0
);

CREATE TABLE tokens (
  hash text PRIMARY KEY,
  id text NOT NULL UNIQUE,
  tenant_id text NOT NULL,
  created_at text NOT NULL,
  record jsonb NOT NULL
);
CREATE INDEX tokens_tenant ON tokens (tenant_id, created_at);

CREATE TABLE users (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  email text NOT NULL UNIQUE,
  oidc_iss text,
  oidc_sub text,
  created_at text NOT NULL,
  record jsonb NOT NULL,
  UNIQUE (oidc_iss, oidc_sub)
);
CREATE INDEX users_tenant ON users (tenant_id, created_at);

CREATE TABLE sessions (
  hash text PRIMARY KEY,
  id text NOT NULL UNIQUE,
  tenant_id text NOT NULL,
  record jsonb NOT NULL
);

CREATE TABLE policies (
  tenant_id text NOT NULL,
  id text NOT NULL,
  pack_key text,
  record jsonb NOT NULL,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, pack_key)
);

CREATE TABLE agents (
  tenant_id text NOT NULL,
  agent_id text NOT NULL,
  name text NOT NULL,
  policy_pack text,
  risk_budget double precision,
  suspended boolean NOT NULL DEFAULT false,
  PRIMARY KEY (tenant_id, agent_id)
);

CREATE TABLE sidecar_tokens (
  hash text PRIMARY KEY,
  id text NOT NULL UNIQUE,
  created_at text NOT NULL,
  record jsonb NOT NULL
);

CREATE TABLE fleet_revision (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  revision bigint NOT NULL
);
INSERT INTO fleet_revision (one, revision) VALUES (true, 0);

-- The changed row's key: its key columns (the trigger's arguments) joined by '/'.
CREATE FUNCTION aduana_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r jsonb := CASE TG_OP WHEN 'DELETE' THEN to_jsonb(OLD) ELSE to_jsonb(NEW) END;
  k text := '';
  i integer;
BEGIN
  FOR i IN 0 .. TG_NARGS - 1 LOOP
    k := k || CASE WHEN i > 0 THEN '/' ELSE '' END || (r ->> TG_ARGV[i]);
  END LOOP;
  PERFORM pg_notify('aduana_rows', TG_TABLE_NAME || ':' || k);
  RETURN NULL;
END $$;

CREATE FUNCTION aduana_bundle_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rev bigint;
BEGIN
  UPDATE fleet_revision SET revision = revision + 1 WHERE one RETURNING revision INTO rev;
  PERFORM pg_notify('aduana_bundle', rev::text);
  RETURN NULL;
END $$;

CREATE TRIGGER tenants_rows AFTER INSERT OR UPDATE OR DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION aduana_row_changed('id');
CREATE TRIGGER tokens_rows AFTER INSERT OR UPDATE OR DELETE ON tokens FOR EACH ROW EXECUTE FUNCTION aduana_row_changed('hash');
CREATE TRIGGER users_rows AFTER INSERT OR UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION aduana_row_changed('id');
CREATE TRIGGER sessions_rows AFTER INSERT OR UPDATE OR DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION aduana_row_changed('hash');
CREATE TRIGGER policies_rows AFTER INSERT OR UPDATE OR DELETE ON policies FOR EACH ROW EXECUTE FUNCTION aduana_row_changed('tenant_id', 'id');
CREATE TRIGGER agents_rows AFTER INSERT OR UPDATE OR DELETE ON agents FOR EACH ROW EXECUTE FUNCTION aduana_row_changed('tenant_id', 'agent_id');
CREATE TRIGGER sidecar_tokens_rows AFTER INSERT OR UPDATE OR DELETE ON sidecar_tokens FOR EACH ROW EXECUTE FUNCTION aduana_row_changed('hash');

-- Named to fire after the row triggers (PostgreSQL fires a table's triggers in name order): a mirror hears a row's
-- change before the revision that includes it.
CREATE TRIGGER tenants_zz_bundle AFTER INSERT OR UPDATE OR DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION aduana_bundle_changed();
CREATE TRIGGER tokens_zz_bundle AFTER INSERT OR UPDATE OR DELETE ON tokens FOR EACH ROW EXECUTE FUNCTION aduana_bundle_changed();
CREATE TRIGGER users_zz_bundle AFTER INSERT OR UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION aduana_bundle_changed();
CREATE TRIGGER policies_zz_bundle AFTER INSERT OR UPDATE OR DELETE ON policies FOR EACH ROW EXECUTE FUNCTION aduana_bundle_changed();
CREATE TRIGGER agents_zz_bundle AFTER INSERT OR UPDATE OR DELETE ON agents FOR EACH ROW EXECUTE FUNCTION aduana_bundle_changed();
`,
};
