import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv';
import { GatewayError } from '../errors.js';

/**
 * Builds the gateway's Ajv instances, the one place their options are set.
 * - `own`: the gateway's own schemas (request bodies, policy rules), one shared instance. Strict, so a mistake in a
 *   schema stops start-up rather than passing bad input; `default` keywords fill missing fields (a stored policy
 *   always has every rule).
 * - `caller`: schemas a caller sends (tool parameter schemas): not strict, since any schema an SDK emits must load, but
 *   checked against the meta-schema so a broken one is reported as such.
 * No formats are registered: fields that need a shape (timestamps, names) say it with `pattern`.
 */
export function createAjv(schemas: 'own' | 'caller'): Ajv {
  if (schemas === 'own') return (own ??= new Ajv({ useDefaults: true, allErrors: false, strict: true, validateSchema: false }));
  return new Ajv({ allErrors: false, strict: false, validateSchema: true });
}

/**
 * The gateway's own schemas share one instance (they carry no `$id` that could collide), and it does not check them
 * against the JSON Schema meta-schema: compiling the meta-schema costs tens of milliseconds of start-up, and strict
 * mode already stops start-up on an unknown keyword or a bad type name. Callers' schemas keep their own instances,
 * meta-schema checked.
 */
let own: Ajv | undefined;

/**
 * One of the gateway's own schemas, compiled once: on its first use, or by `compileOwnSchemasSoon()` in the turns
 * after the gateway starts listening, whichever comes first. Compiling them all before listening was about 70 ms of
 * a sidecar's start-up (docs/benchmarks-history.md, "Start-up"); every one is still compiled once per process, never
 * per request, and a test compiles them all, so a schema strict mode refuses fails the build, not a request.
 */
export class OwnSchema<T = unknown> {
  readonly schema: AnySchema;
  #compiled: ValidateFunction<T> | null = null;

  constructor(schema: AnySchema) {
    this.schema = schema;
    notCompiled.add(this);
  }

  get validate(): ValidateFunction<T> {
    if (this.#compiled === null) {
      this.#compiled = createAjv('own').compile<T>(this.schema);
      notCompiled.delete(this);
    }
    return this.#compiled;
  }
}

const notCompiled = new Set<OwnSchema<unknown>>();

/** Every own schema not compiled yet, compiled now (tests; and what compileOwnSchemasSoon spreads over turns). */
export function compileOwnSchemas(): number {
  let n = 0;
  for (const s of [...notCompiled]) {
    void s.validate;
    n++;
  }
  return n;
}

/** Compiles the own schemas not compiled yet, one per turn of the event loop, so that a request never waits for more than one. */
export function compileOwnSchemasSoon(): void {
  const next = notCompiled.values().next();
  if (next.done) return;
  setImmediate(() => {
    void next.value.validate;
    compileOwnSchemasSoon();
  }).unref();
}

/** Human-readable first error of an ajv run, naming the field (`root` prefixes the path, e.g. `rules`). */
export function describeAjvError(errors: ErrorObject[] | null | undefined, root: string): string {
  const e = errors?.[0];
  if (!e) return 'invalid request';
  const path = `${root}${e.instancePath.replace(/\//g, '.')}`;
  if (e.keyword === 'additionalProperties') return `${path}: unknown field "${String(e.params['additionalProperty'])}"`;
  if (e.keyword === 'required') return `${path ? `${path}: ` : ''}missing required field "${String(e.params['missingProperty'])}"`;
  if (e.keyword === 'enum') return `${path}: must be one of ${(e.params['allowedValues'] as unknown[]).join(', ')}`;
  return `${path || 'body'}: ${e.message ?? 'invalid'}`;
}

/** Runs a compiled validator; invalid input is an invalid_request (400) naming the first bad field. */
export function assertValid(schema: OwnSchema | ValidateFunction, value: unknown, root = ''): void {
  const validate = schema instanceof OwnSchema ? schema.validate : schema;
  if (!validate(value)) throw new GatewayError('invalid_request', describeAjvError(validate.errors, root));
}
