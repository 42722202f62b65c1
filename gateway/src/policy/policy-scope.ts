import type RE2 from 're2';
import { compileGlobs, foldName, MAX_GLOB_CHARS, MAX_GLOBS } from './tool-globs.js';

/** Where an action came in: a proxied provider call, an MCP message, `/v1/decide`, an ingested event. */
export const DOORS = ['proxy', 'mcp', 'decide', 'events'] as const;
export type Door = (typeof DOORS)[number];

/** Which side of an action a policy judges: the request (a prompt, a tool's arguments) or the answer (a result). */
export type Direction = 'input' | 'output' | 'both';

/**
 * Where a policy applies (docs/policies.md, "Scope"): every field given must match the action, a field absent matches
 * any. Agents, models, MCP servers and tools are name globs (as tool_access's: `*`, `?`, NFKC and case folded).
 */
export interface PolicyScope {
  agents?: string[];
  models?: string[];
  servers?: string[];
  tools?: string[];
  doors?: Door[];
  direction?: Direction;
}

/** One list of globs: no control characters (no name the gateway admits has one). */
const GLOBS = { type: 'array', minItems: 1, maxItems: MAX_GLOBS, items: { type: 'string', minLength: 1, maxLength: MAX_GLOB_CHARS, pattern: '^[^\\u0000-\\u001f\\u007f]+$' } };

/** The JSON Schema of a policy's `scope`; an empty one is refused (omit it, or send null to clear it). */
export const SCOPE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    agents: GLOBS,
    models: GLOBS,
    // MCP_UPSTREAMS names are letters, digits, _ and -: a glob of anything else (a URL) could never match.
    servers: { ...GLOBS, items: { type: 'string', pattern: '^[A-Za-z0-9_*?-]{1,64}$' } },
    tools: GLOBS,
    doors: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: DOORS } },
    direction: { type: 'string', enum: ['input', 'output', 'both'] },
  },
};

/** A scope that picks the actions a policy applies to (direction only splits what a policy judges of each). */
export function isAimed(scope: PolicyScope | undefined): scope is PolicyScope {
  return scope !== undefined && (scope.agents !== undefined || scope.models !== undefined || scope.servers !== undefined || scope.tools !== undefined || scope.doors !== undefined);
}

/**
 * The action a set is chosen for, each name folded once (foldName) for every scope that reads it; undefined: the
 * action has none (a /v1/decide call asks for no model, a proxied call uses no MCP server).
 */
export interface ScopedAction {
  door: Door;
  agent: string | undefined;
  model: string | undefined;
  /** Azure's deployment when it differs from the model: a scope by model matches either name. */
  deployment: string | undefined;
  server: string | undefined;
  tool: string | undefined;
}

/** One aimed policy's test of an action: its globs compiled to RE2 once, at policy-change time. */
export class ScopeMatcher {
  readonly #doors: ReadonlySet<Door> | null;
  readonly #agents: RE2 | null;
  readonly #models: RE2 | null;
  readonly #servers: RE2 | null;
  readonly #tools: RE2 | null;

  constructor(scope: PolicyScope) {
    this.#doors = scope.doors ? new Set(scope.doors) : null;
    this.#agents = scope.agents ? compileGlobs(scope.agents) : null;
    this.#models = scope.models ? compileGlobs(scope.models) : null;
    this.#servers = scope.servers ? compileGlobs(scope.servers) : null;
    this.#tools = scope.tools ? compileGlobs(scope.tools) : null;
  }

  /** Every field given matches; an action lacking what a field asks (no model, no tool) does not. */
  matches(a: ScopedAction): boolean {
    if (this.#doors !== null && !this.#doors.has(a.door)) return false;
    if (this.#agents !== null && (a.agent === undefined || !this.#agents.test(a.agent))) return false;
    if (this.#models !== null && !((a.model !== undefined && this.#models.test(a.model)) || (a.deployment !== undefined && this.#models.test(a.deployment)))) return false;
    if (this.#servers !== null && (a.server === undefined || !this.#servers.test(a.server))) return false;
    if (this.#tools !== null && (a.tool === undefined || !this.#tools.test(a.tool))) return false;
    return true;
  }
}

/** The action as scopes read it: names folded, empty ones absent (an event with no agent id has no agent). */
export function scopedAction(door: Door, agentId: string, model?: string, server?: string, tool?: string, deployment?: string): ScopedAction {
  const some = (s: string | undefined) => (s === undefined || s === '' ? undefined : foldName(s));
  return { door, agent: some(agentId), model: some(model), deployment: deployment === model ? undefined : some(deployment), server: some(server), tool: some(tool) };
}

/** A scope for people: `agents bot-a, bot-b · doors proxy`; '' when the policy applies everywhere. */
export function describeScope(scope: PolicyScope | undefined): string {
  if (scope === undefined) return '';
  const parts: string[] = [];
  for (const key of ['agents', 'models', 'servers', 'tools', 'doors'] as const) {
    const list = scope[key];
    if (list !== undefined) parts.push(`${key} ${list.join(', ')}`);
  }
  if (scope.direction !== undefined && scope.direction !== 'both') parts.push(`${scope.direction} only`);
  return parts.join(' · ');
}
