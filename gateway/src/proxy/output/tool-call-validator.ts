import type { ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';
import { createAjv } from '../../platform/gateway-ajv.js';

/**
 * The hallucination shield's tool-call check: every tool call in an answer must name a tool the request declared,
 * with arguments that are valid JSON matching that tool's parameter schema. Schemas come with each request, so the
 * compiled validators are cached by schema text: an agent sends the same tools every time, and nothing is compiled
 * twice.
 */
export class ToolCallValidator {
  readonly #ajv = createAjv('caller');
  readonly #cache = new LRUCache<string, ValidateFunction | 'invalid'>({ max: 1000 });

  #validatorFor(schema: unknown): ValidateFunction | 'invalid' {
    const key = JSON.stringify(schema);
    let v = this.#cache.get(key);
    if (v === undefined) {
      try {
        v = this.#ajv.compile(schema as object);
      } catch {
        v = 'invalid';
      }
      this.#cache.set(key, v);
    }
    return v;
  }

  /** Problems found, e.g. `get_weather: arguments are not valid JSON`; [] when every call is fine. */
  check(request: Record<string, unknown>, answer: Record<string, unknown>): string[] {
    const declared = new Map<string, unknown>();
    const tools = request['tools'];
    if (Array.isArray(tools)) {
      for (const t of tools) {
        const fn = (t as Record<string, unknown> | null)?.['function'] as Record<string, unknown> | undefined;
        if (fn && typeof fn['name'] === 'string') declared.set(fn['name'], fn['parameters'] ?? { type: 'object' });
      }
    }
    const problems: string[] = [];
    const choices = answer['choices'];
    if (!Array.isArray(choices)) return problems;
    for (const c of choices) {
      const calls = ((c as Record<string, unknown> | null)?.['message'] as Record<string, unknown> | undefined)?.['tool_calls'];
      if (!Array.isArray(calls)) continue;
      for (const call of calls) {
        const fn = (call as Record<string, unknown> | null)?.['function'] as Record<string, unknown> | undefined;
        const name = typeof fn?.['name'] === 'string' ? fn['name'] : '';
        if (!declared.has(name)) {
          problems.push(`${name || '(unnamed)'}: tool was not declared in the request`);
          continue;
        }
        let args: unknown;
        try {
          args = JSON.parse(typeof fn?.['arguments'] === 'string' ? fn['arguments'] : '');
        } catch {
          problems.push(`${name}: arguments are not valid JSON`);
          continue;
        }
        const v = this.#validatorFor(declared.get(name));
        if (v !== 'invalid' && !v(args)) problems.push(`${name}: arguments do not match the tool schema (${v.errors?.[0]?.instancePath || '/'} ${v.errors?.[0]?.message ?? ''})`);
      }
    }
    return problems;
  }
}
