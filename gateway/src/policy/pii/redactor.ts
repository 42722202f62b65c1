import type { CompiledPii } from './compile.js';
import { applyRedactions, compilePii, scanText } from './compile.js';
import type { PiiEntity, PiiMatch } from './entities.js';
import { ALL_PII_ENTITIES } from './entities.js';
import type { PiiStreamRedactor } from './stream-redactor.js';
import { StreamRedactor } from './stream-redactor.js';

export interface PiiRedactor {
  readonly entities: readonly PiiEntity[];
  /** Non-overlapping, sorted, validated matches (UTF-16 offsets). `utf8`: `text` already encoded, when the caller has it. */
  scan(text: string, utf8?: Buffer): PiiMatch[];
  /** Replaces each match with `[REDACTED:ENTITY]`; returns the same string instance when nothing matched. */
  redact(text: string): { text: string; matches: PiiMatch[] };
  createStream(): PiiStreamRedactor;
}

// Compiling costs milliseconds; tenants with the same entity list share one compiled engine (it is immutable).
const compiled = new Map<string, CompiledPii>();

/** Compiles the recognizers of `entities` (default: all) once; the result is safe to share across requests. */
export function createPiiRedactor(entities: readonly PiiEntity[] = ALL_PII_ENTITIES): PiiRedactor {
  const known = new Set<string>(ALL_PII_ENTITIES);
  for (const e of entities) if (!known.has(e)) throw new Error(`unknown PII entity: ${String(e)}`);
  const list = ALL_PII_ENTITIES.filter((e) => entities.includes(e));
  const key = list.join(',');
  let c = compiled.get(key);
  if (c === undefined) {
    c = compilePii(list);
    compiled.set(key, c);
  }
  const engine = c;
  return {
    entities: engine.entities,
    scan: (text, utf8) => scanText(engine, text, utf8),
    redact(text) {
      const matches = scanText(engine, text);
      if (matches.length === 0) return { text, matches };
      return { text: applyRedactions(text, matches), matches };
    },
    createStream: () => new StreamRedactor(engine),
  };
}
