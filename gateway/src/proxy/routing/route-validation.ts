import type { ErrorObject } from 'ajv';
import { GatewayError } from '../../errors.js';
import { MODEL_NAME, ROUTE_DEFAULTS, ROUTE_NAME, routeSpecSchema } from './route-schema.js';
import type { ModelRouteSpec, RouteSpec, TargetSpec } from './route-spec.js';

/** What is wrong with a tenant's routes: where (`targets.azure-eu.base_url`; empty: the whole body) and why. */
export interface RouteProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * Whether a tenant has a credential of this name (the credential store's `has`; never the secret). Null where no
 * credential is kept (the control plane: each sidecar resolves the names itself), so any well-formed name is taken.
 */
export type CredentialNames = ((tenantId: string, name: string) => boolean) | null;

/**
 * A body as a tenant's routes, or a 400 naming the first thing wrong with it: routes are taken whole or not at all,
 * so the router never compiles half of a change.
 */
export function validateRoutes(body: unknown, tenantId: string, hasCredential: CredentialNames): RouteSpec {
  const problem = routeProblem(body, tenantId, hasCredential);
  if (problem !== null) throw new GatewayError('invalid_request', problem.path === '' ? problem.message : `${problem.path}: ${problem.message}`);
  return body as RouteSpec;
}

/** The first problem of a body as routes, its shape first (route-schema.ts), then what its parts say of each other; null: none. */
export function routeProblem(body: unknown, tenantId: string, hasCredential: CredentialNames): RouteProblem | null {
  const validate = routeSpecSchema.validate;
  if (!validate(body)) return shapeProblem(validate.errors?.[0]);
  const spec = body;
  for (const [name, target] of Object.entries(spec.targets)) {
    const problem = targetProblem(`targets.${name}`, target, tenantId, hasCredential);
    if (problem !== null) return problem;
  }
  for (const [name, route] of Object.entries(spec.models ?? {})) {
    const problem = modelRouteProblem(`models.${name}`, route, spec);
    if (problem !== null) return problem;
  }
  return backoffProblem(spec);
}

const NAME_RULES: Readonly<Record<string, string>> = {
  [ROUTE_NAME]: 'must be a name: a letter or digit, then letters, digits, ".", "_", ":" or "-", at most 128 characters',
  [MODEL_NAME]: 'must be a model name: a letter or digit, then letters, digits, ".", "_", ":", "/" or "-", at most 256 characters',
};

/** What a capped list or map counts, by its field's name. */
const COUNTED: Readonly<Record<string, string>> = { targets: 'targets', models: 'models', credentials: 'credentials', deployments: 'deployments', on: 'retry conditions' };

/** An ajv error as a problem: its path in dots (a property name it refused included), in words a person can act on. */
function shapeProblem(e: ErrorObject | undefined): RouteProblem {
  if (e === undefined) return { path: '', message: 'routes are invalid' };
  const segments = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const named = (e as ErrorObject & { propertyName?: string }).propertyName;
  if (named !== undefined) segments.push(named);
  const path = segments.join('.');
  switch (e.keyword) {
    case 'additionalProperties':
      return { path, message: `unknown field "${String(e.params['additionalProperty'])}"` };
    case 'required':
      return { path, message: `missing required field "${String(e.params['missingProperty'])}"` };
    case 'enum':
      return { path, message: `must be one of ${(e.params['allowedValues'] as unknown[]).join(', ')}` };
    case 'pattern':
      return { path, message: NAME_RULES[String(e.params['pattern'])] ?? e.message ?? 'invalid' };
    case 'minItems':
    case 'minProperties':
      // Every minimum is one: an empty list or map. Routes are removed with DELETE, never emptied.
      return { path, message: path === 'targets' ? "at least one target; to remove the tenant's routes, DELETE /v1/routes (aduana routes delete)" : 'must not be empty' };
    case 'maxItems':
    case 'maxProperties':
      return { path, message: `at most ${String(e.params['limit'])} ${COUNTED[segments.at(-1) ?? ''] ?? 'entries'}` };
    default:
      return { path, message: e.message ?? 'invalid' };
  }
}

function targetProblem(at: string, target: TargetSpec, tenantId: string, hasCredential: CredentialNames): RouteProblem | null {
  const url = baseUrlProblem(target.base_url);
  if (url !== null) return { path: `${at}.base_url`, message: url };
  if (target.deployments !== undefined && target.provider !== 'azure') return { path: `${at}.deployments`, message: `only azure targets have deployments (this one is ${target.provider})` };
  if (target.credential !== undefined && target.credentials !== undefined) return { path: at, message: 'credential or credentials, not both' };
  const named: [string, string][] = target.credential !== undefined ? [[`${at}.credential`, target.credential]] : (target.credentials ?? []).map((c, i) => [`${at}.credentials.${i}`, c]);
  for (const [path, name] of named) if (hasCredential !== null && !hasCredential(tenantId, name)) return { path, message: `unknown credential "${name}": this tenant has no provider credential of that name` };
  return null;
}

/**
 * A target's base URL: absolute http(s), and nothing a secret could hide in. A key belongs in a credential, where it
 * is sealed and never shown; in a URL it would be stored, exported and logged in the clear.
 */
export function baseUrlProblem(raw: string): string | null {
  if (/\s/.test(raw) || [...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return 'must not contain spaces or control characters';
  if (!/^https?:\/\//i.test(raw)) return 'must be an absolute http or https URL (http://… or https://…)';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL (http://… or https://…)';
  }
  // `http://@host` has an empty user and no password, and is refused all the same: no `@` in the authority at all.
  const authority = /^https?:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? '';
  if (url.username !== '' || url.password !== '' || authority.includes('@')) return 'must not carry credentials (user:password@): name a credential instead';
  if (raw.includes('?')) return 'must not have a query: name a credential for a key, and the model or deployment in the route';
  if (raw.includes('#')) return 'must not have a fragment';
  return null;
}

function modelRouteProblem(at: string, route: ModelRouteSpec, spec: RouteSpec): RouteProblem | null {
  const models = spec.models ?? {};
  const seen = new Set<string>();
  for (const [i, ref] of route.targets.entries()) {
    const path = `${at}.targets.${i}`;
    const name = typeof ref === 'string' ? ref : ref.target;
    const target = Object.hasOwn(spec.targets, name) ? spec.targets[name] : undefined;
    // A model route names targets, never another model: routes do not chain, so no name can lead back to itself.
    if (Object.hasOwn(models, name)) {
      return { path, message: target !== undefined ? `"${name}" is both a target and a model: rename one, a model route must name a target only` : `"${name}" is a model, not a target: a model route names targets only` };
    }
    if (target === undefined) return { path, message: `unknown target "${name}"` };
    if (typeof ref !== 'string' && ref.weight !== undefined && route.strategy === 'fallback') return { path: `${path}.weight`, message: 'weights are for weighted routes: a fallback route tries its targets in order' };
    const model = typeof ref === 'string' ? undefined : ref.model;
    const key = `${name}\u0000${model ?? ''}`;
    if (seen.has(key)) return { path, message: model === undefined ? `target "${name}" is listed twice` : `target "${name}" with model "${model}" is listed twice` };
    seen.add(key);
  }
  return null;
}

function backoffProblem(spec: RouteSpec): RouteProblem | null {
  const given = spec.retry?.backoff_ms;
  const base = given?.base ?? ROUTE_DEFAULTS.retry.backoff_ms.base;
  const max = given?.max ?? ROUTE_DEFAULTS.retry.backoff_ms.max;
  if (base <= max) return null;
  const said = (v: number | undefined, d: number) => (v === undefined ? `${d}, the default` : `${v}`);
  return {
    path: given?.base !== undefined ? 'retry.backoff_ms.base' : 'retry.backoff_ms.max',
    message: `base (${said(given?.base, base)}) is more than max (${said(given?.max, max)})`,
  };
}
