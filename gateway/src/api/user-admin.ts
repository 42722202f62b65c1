import { randomBytes } from 'node:crypto';
import { GatewayError } from '../errors.js';
import { ROLES, type Principal, type Role } from '../identity/auth/principal.js';
import { assertValid, OwnSchema } from '../platform/gateway-ajv.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { actorOf } from '../governance/admin-actions.js';
import { createPasswordUser, type PasswordRules } from '../identity/users/create-user.js';
import { userView, type UserRecord } from '../identity/users/user-record.js';

const validateCreate = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['email', 'name', 'role', 'password'],
  properties: {
    email: { type: 'string', minLength: 3, maxLength: 320 },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    role: { type: 'string', enum: ROLES },
    password: { type: 'string' },
    tenant_id: { type: 'string' },
  },
});

/** A new user as an admin asks for one: the body of `POST /admin/users`, and what the console's users page posts. */
export interface UserRequest {
  email: string;
  name: string;
  role: Role;
  password: string;
  tenant_id?: string;
}

export type UserAdminDeps = Pick<GatewayDeps, 'users' | 'tenants' | 'config' | 'onAdminAction'>;

/** The password rules of the configuration (PASSWORD_MIN_LENGTH, PASSWORD_MAX_BYTES, PASSWORD_SCRYPT_LOG_N). */
export function passwordRules(config: UserAdminDeps['config']): PasswordRules {
  return { minLength: config.passwordMinLength, maxBytes: config.passwordMaxBytes, scryptLogN: config.passwordScryptLogN };
}

/** 400 unless `body` is a user request (the admin API's schema); the request, typed. */
export function checkUserRequest(body: unknown): UserRequest {
  assertValid(validateCreate, body);
  return body as UserRequest;
}

/** A password user of the caller's tenant (createPasswordUser's checks), chained as `user.created`. */
export async function addUser(deps: UserAdminDeps, caller: Principal, req: UserRequest, traceId: string): Promise<UserRecord> {
  const rec = await createPasswordUser(deps.users, deps.tenants, passwordRules(deps.config), { tenantId: caller.tenantId, email: req.email, name: req.name, role: req.role, password: req.password });
  await deps.onAdminAction(caller.tenantId, { actor: actorOf(caller), action: 'user.created', target: rec.id, before: null, after: userView(rec) }, traceId);
  return rec;
}

/**
 * Disables a user of the caller's tenant (its sessions and tokens stop working at once, authenticate.ts), chained as
 * `user.disabled`. 404 for a user of another tenant or none; 409 for the caller's own account, so an admin cannot
 * lock themself out by mistake.
 */
export async function disableUser(deps: UserAdminDeps, caller: Principal, id: string, traceId: string): Promise<UserRecord> {
  const before = deps.users.get(id);
  if (!before || before.tenant_id !== caller.tenantId) throw new GatewayError('not_found', 'user not found');
  if (caller.userId !== '' && caller.userId === id) throw new GatewayError('conflict', 'you cannot disable your own account');
  const rec = await deps.users.disable(caller.tenantId, id);
  if (!rec) throw new GatewayError('not_found', 'user not found');
  await deps.onAdminAction(caller.tenantId, { actor: actorOf(caller), action: 'user.disabled', target: rec.id, before: userView(before), after: userView(rec) }, traceId);
  return rec;
}

/** A password for a new user, for an admin to hand over: 24 random URL-safe characters (144 bits), or the minimum length. */
export function generatePassword(rules: PasswordRules): string {
  const length = Math.max(rules.minLength, 24);
  return randomBytes(Math.ceil((length * 3) / 4)).toString('base64url').slice(0, length);
}
