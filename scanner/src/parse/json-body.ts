import type { Probe } from '../snapshot/snapshot.js';

/** The probe's body as a JSON object when it answered 200 with one; undefined otherwise (HTML 200 pages included). */
export function jsonObject(probe: Probe): Record<string, unknown> | undefined {
  if (probe.status !== 200 || !/^\s*\{/.test(probe.body)) return undefined;
  try {
    const value: unknown = JSON.parse(probe.body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
