import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/index.js';

describe('docs/scanner.md', () => {
  it('lists every registered check', () => {
    const doc = readFileSync(new URL('../../docs/scanner.md', import.meta.url), 'utf8');
    const missing = CHECKS.map((c) => c.id).filter((id) => !doc.includes(`\`${id}\``));
    expect(missing).toEqual([]);
  });
});
