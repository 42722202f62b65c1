import { describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../src/collect/collectors.js';

describe('the collector registry', () => {
  it('has one collector per snapshot part, the page excepted (collected first, by collectSnapshot itself)', () => {
    const parts = COLLECTORS.map((c) => c.part);
    expect(new Set(parts).size).toBe(parts.length);
    expect(parts).not.toContain('page');
  });
});
