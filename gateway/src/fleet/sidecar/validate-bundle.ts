import { describeAjvError, OwnSchema } from '../../platform/gateway-ajv.js';
import { PLAN_NAMES } from '../../identity/tenants/plans.js';
import { PACK_NAMES } from '../../policy/packs.js';
import { SCOPE_SCHEMA } from '../../policy/policy-scope.js';
import { ROLES } from '../../identity/auth/principal.js';
import { isValidTenantId } from '../../identity/tenants/tenant-store.js';
import { BUNDLE_FORMAT, type Bundle } from '../bundle/bundle-format.js';
import { routeProblem } from '../../proxy/routing/route-validation.js';

const ID = { type: 'string', minLength: 1, maxLength: 200 } as const;
const TIME = { type: 'string', maxLength: 64 } as const;
const TIME_OR_NULL = { type: ['string', 'null'], maxLength: 64 } as const;

/** The shape a sidecar checks before it writes anything (the policies' content is checked by compiling them). */
const BUNDLE_SCHEMA = {
  type: 'object',
  required: ['format', 'revision', 'generated_at', 'tenants'],
  properties: {
    format: { const: BUNDLE_FORMAT },
    revision: { type: 'integer', minimum: 0 },
    generated_at: TIME,
    tenants: {
      type: 'array',
      items: {
        type: 'object',
        required: ['tenant', 'tokens', 'users', 'policies', 'agents'],
        properties: {
          tenant: {
            type: 'object',
            required: ['id', 'name', 'plan', 'created_at', 'policy_version'],
            properties: {
              id: ID,
              name: { type: 'string' },
              plan: { enum: PLAN_NAMES },
              created_at: TIME,
              policy_version: { type: 'integer', minimum: 0 },
              // Chained in this sidecar's ledger when the plan changes: only what the control plane writes there.
              plan_changed: {
                type: 'object',
                required: ['from', 'to', 'by', 'at'],
                properties: { from: { enum: PLAN_NAMES }, to: { enum: PLAN_NAMES }, by: { type: 'string', minLength: 1, maxLength: 256 }, at: TIME },
              },
            },
          },
          tokens: {
            type: 'array',
            items: {
              type: 'object',
              required: ['hash', 'record'],
              properties: {
                hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
                record: {
                  type: 'object',
                  required: ['id', 'tenant_id', 'role', 'expires_at', 'revoked_at'],
                  properties: { id: ID, tenant_id: ID, role: { enum: ROLES }, expires_at: TIME, revoked_at: TIME_OR_NULL },
                },
              },
            },
          },
          users: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'tenant_id', 'email', 'role', 'disabled_at'],
              properties: { id: ID, tenant_id: ID, email: { type: 'string', minLength: 3 }, role: { enum: ROLES }, disabled_at: TIME_OR_NULL },
            },
          },
          policies: {
            type: 'array',
            items: { type: 'object', required: ['id', 'tenant_id', 'type', 'rules'], properties: { id: ID, tenant_id: ID, type: { type: 'string' }, rules: { type: 'object' }, scope: SCOPE_SCHEMA } },
          },
          agents: {
            type: 'array',
            items: {
              type: 'object',
              required: ['agent_id', 'name', 'policy_pack', 'risk_budget', 'suspended'],
              properties: {
                agent_id: ID,
                name: { type: 'string' },
                policy_pack: { enum: [...PACK_NAMES, null] },
                risk_budget: { type: ['number', 'null'] },
                suspended: { type: 'boolean' },
              },
            },
          },
          // Enforced again here: a sidecar samples at no rate its own API would refuse.
          request_log: {
            type: 'object',
            required: ['enabled', 'sample_rate', 'retention_days', 'updated_at', 'updated_by'],
            properties: {
              enabled: { type: 'boolean' },
              sample_rate: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
              retention_days: { type: 'integer', minimum: 1, maximum: 365 },
              updated_at: TIME_OR_NULL,
              updated_by: { type: ['string', 'null'], maxLength: 512 },
            },
          },
          // The spec itself is checked by the routes API's own rules below, as a PUT would be.
          routes: {
            type: 'object',
            required: ['version', 'spec', 'updated_at', 'updated_by'],
            properties: {
              version: { type: 'integer', minimum: 1 },
              spec: { type: ['object', 'null'] },
              updated_at: TIME,
              updated_by: { type: 'string', maxLength: 512 },
            },
          },
          resolutions: {
            type: 'array',
            items: {
              type: 'object',
              required: ['decision_id', 'chain_id', 'resolution'],
              properties: {
                decision_id: { type: 'string', minLength: 1, maxLength: 256 },
                chain_id: { type: 'string', minLength: 1, maxLength: 512 },
                resolution: {
                  type: 'object',
                  required: ['status', 'note', 'resolved_by', 'resolved_at'],
                  properties: { status: { enum: ['APPROVED', 'REJECTED'] }, note: { type: 'string' }, resolved_by: { type: 'string' }, resolved_at: TIME },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

const BUNDLE = new OwnSchema<Bundle>(BUNDLE_SCHEMA);

/** Checks a bundle's shape and that nothing in it belongs to another tenant; throws an Error saying what is wrong. */
export function checkBundle(value: unknown): Bundle {
  const validate = BUNDLE.validate;
  if (!validate(value)) throw new Error(`malformed bundle: ${describeAjvError(validate.errors, 'bundle')}`);
  const seen = new Set<string>();
  for (const t of value.tenants) {
    const id = t.tenant.id;
    if (!isValidTenantId(id)) throw new Error(`malformed bundle: invalid tenant id "${id}"`);
    if (seen.has(id)) throw new Error(`malformed bundle: tenant ${id} appears twice`);
    seen.add(id);
    const foreign =
      t.tokens.find((x) => x.record.tenant_id !== id)?.record.id ?? t.users.find((u) => u.tenant_id !== id)?.id ?? t.policies.find((p) => p.tenant_id !== id)?.id;
    if (foreign) throw new Error(`malformed bundle: ${foreign} listed under tenant ${id} belongs to another tenant`);
    // Credentials are this sidecar's own: a name it cannot resolve is told when the bundle is applied, not refused.
    const routes = t.routes?.spec ? routeProblem(t.routes.spec, id, null) : null;
    if (routes !== null) throw new Error(`malformed bundle: the routes of tenant ${id}: ${routes.path === '' ? routes.message : `${routes.path}: ${routes.message}`}`);
  }
  return value;
}
