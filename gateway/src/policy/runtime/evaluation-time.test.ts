import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors.js';
import { EvaluationTime } from './evaluation-time.js';

describe('EvaluationTime', () => {
  it('refuses a tenant past its burst, per tenant, and lets it back in as the debt drains', () => {
    let now = 0;
    const t = new EvaluationTime(100, 50, () => now);
    t.admit('a');
    t.charge('a', 300);
    expect(() => t.admit('a')).toThrow(GatewayError);
    t.admit('b');
    try {
      t.admit('a');
    } catch (err) {
      expect((err as GatewayError).status).toBe(429);
      expect((err as GatewayError).headers?.['retry-after']).toBe('4');
    }
    now = 3000; // 150 ms drained: 150 left, still past 100
    expect(() => t.admit('a')).toThrow(/evaluation time/);
    now = 4000; // 200 drained: 100 left, at the burst
    t.admit('a');
  });
});
