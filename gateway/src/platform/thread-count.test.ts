import { describe, expect, it } from 'vitest';
import { gatewayThreadCount } from './thread-count.js';

describe('GATEWAY_THREADS', () => {
  it('is the number set, whatever the cores, where request threads can serve', () => {
    expect(gatewayThreadCount(3, true, () => 8)).toBe(3);
    expect(gatewayThreadCount(2, true, () => 1)).toBe(2);
  });

  it('by default (0) is the cores the process may use', () => {
    expect(gatewayThreadCount(0, true, () => 4)).toBe(4);
    expect(gatewayThreadCount(0, true, () => 1)).toBe(1);
  });

  it('is one, the main thread alone, where request threads cannot serve (no agents\' port, a sidecar, Redis, the ledger inline), whatever is set', () => {
    expect(gatewayThreadCount(0, false, () => 16)).toBe(1);
    expect(gatewayThreadCount(4, false, () => 16)).toBe(1);
  });
});
