/** One `<script type="application/ld+json">` block: its parse result and the schema.org types it declares. */
export interface JsonLdBlock {
  readonly raw: string;
  /** The parsed value; undefined when the block is not valid JSON (see `error`). */
  readonly value?: unknown;
  readonly error?: string;
  /** Every @type found, at any depth and inside @graph, without a schema.org prefix. */
  readonly types: readonly string[];
}

function collectTypes(value: unknown, out: Set<string>, depth: number): void {
  if (depth > 20 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) collectTypes(v, out, depth + 1);
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    if (key === '@type') {
      for (const t of Array.isArray(v) ? v : [v]) {
        if (typeof t === 'string') out.add(t.replace(/^https?:\/\/schema\.org\//, ''));
      }
    } else collectTypes(v, out, depth + 1);
  }
}

export function parseJsonLd(raw: string): JsonLdBlock {
  try {
    const value: unknown = JSON.parse(raw);
    const types = new Set<string>();
    collectTypes(value, types, 0);
    return { raw, value, types: [...types] };
  } catch (err) {
    return { raw, error: err instanceof Error ? err.message : String(err), types: [] };
  }
}

/** Every object in a JSON-LD value (through arrays and @graph) whose @type includes `type`. */
export function nodesOfType(value: unknown, type: string, out: Record<string, unknown>[] = [], depth = 0): Record<string, unknown>[] {
  if (depth > 20 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    for (const v of value) nodesOfType(v, type, out, depth + 1);
    return out;
  }
  const node = value as Record<string, unknown>;
  const t = node['@type'];
  const types = Array.isArray(t) ? t : [t];
  if (types.some((x) => typeof x === 'string' && x.replace(/^https?:\/\/schema\.org\//, '') === type)) out.push(node);
  for (const [key, v] of Object.entries(node)) if (key !== '@type') nodesOfType(v, type, out, depth + 1);
  return out;
}
