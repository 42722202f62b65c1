import { Ajv } from 'ajv';

/** One configuration key: where it comes from, its type and its default. Every key has an env name and a default. */
export interface ConfigKey {
  env: string;
  type: 'string' | 'integer' | 'number' | 'boolean';
  default: string | number | boolean;
  description: string;
  minimum?: number;
  maximum?: number;
  enum?: readonly string[];
}

export type ConfigSpec = Record<string, ConfigKey>;

type ValueOf<K extends ConfigKey> = K['type'] extends 'string'
  ? string
  : K['type'] extends 'boolean'
    ? boolean
    : number;

export type ConfigValues<S extends ConfigSpec> = { readonly [P in keyof S]: ValueOf<S[P]> };

export class ConfigError extends Error {
  constructor(
    readonly key: string,
    readonly env: string,
    detail: string,
  ) {
    super(`invalid configuration ${key} (${env}): ${detail}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads a spec's keys from the environment (or an override object, for tests), coerces and validates them once with
 * ajv, and returns a frozen object. A bad value throws a ConfigError naming the key and its env variable.
 */
export function loadConfig<S extends ConfigSpec>(
  spec: S,
  env: Readonly<Record<string, string | undefined>> = process.env,
  overrides: Partial<Record<keyof S, string | number | boolean>> = {},
): ConfigValues<S> {
  const properties: Record<string, object> = {};
  const raw: Record<string, unknown> = {};
  for (const [key, k] of Object.entries(spec)) {
    const prop: Record<string, unknown> = { type: k.type, default: k.default };
    if (k.minimum !== undefined) prop.minimum = k.minimum;
    if (k.maximum !== undefined) prop.maximum = k.maximum;
    if (k.enum) prop.enum = k.enum;
    properties[key] = prop;
    const fromOverride = overrides[key as keyof S];
    const fromEnv = env[k.env];
    if (fromOverride !== undefined) raw[key] = fromOverride;
    else if (fromEnv !== undefined && fromEnv !== '') raw[key] = fromEnv;
  }
  // The schema is built just above from typed specs: checking it against the JSON Schema meta-schema would compile the
  // meta-schema at every start (tens of ms) to find nothing.
  const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, validateSchema: false });
  const validate = ajv.compile({ type: 'object', properties, additionalProperties: false });
  if (!validate(raw)) {
    const err = validate.errors?.[0];
    const key = (err?.instancePath ?? '').replace(/^\//, '') || String(err?.params?.['additionalProperty'] ?? '?');
    throw new ConfigError(key, spec[key]?.env ?? '?', err?.message ?? 'invalid');
  }
  return Object.freeze(raw) as ConfigValues<S>;
}

/** Markdown table of a spec's keys, for docs/configuration.md. */
export function describeConfig(spec: ConfigSpec): string {
  const rows = Object.values(spec).map(
    (k) => `| \`${k.env}\` | ${k.type} | \`${String(k.default)}\` | ${k.description} |`,
  );
  return ['| env | type | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
