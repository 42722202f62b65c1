import { describe, expect, it } from 'vitest';
import { compileOwnSchemas, OwnSchema } from '../platform/gateway-ajv.js';

// The gateway's own schemas compile after it starts listening (compileOwnSchemasSoon): whatever strict mode refuses in
// one of them must fail here, not on the first request that needs it.
describe("the gateway's own schemas", () => {
  it('all compile in strict mode, once', async () => {
    await import('../gateway.js');
    await import('../control-plane.js');
    const compiled = compileOwnSchemas();
    expect(compiled).toBeGreaterThanOrEqual(20);
    expect(compileOwnSchemas()).toBe(0);
  });

  it('compile on first use, and then validate as ajv does', () => {
    const s = new OwnSchema<{ n: number }>({ type: 'object', required: ['n'], additionalProperties: false, properties: { n: { type: 'integer' } } });
    expect(s.validate({ n: 1 })).toBe(true);
    expect(s.validate({ n: 'x' })).toBe(false);
    expect(s.validate.errors?.[0]?.instancePath).toBe('/n');
    expect(compileOwnSchemas()).toBe(0);
  });

  it('refuse a schema strict mode does not accept', () => {
    const bad = new OwnSchema({ type: 'object', properties: { n: { type: 'integr' } } });
    expect(() => bad.validate).toThrow(/integr/);
  });
});
