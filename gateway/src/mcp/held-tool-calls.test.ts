import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore, type GatewayStore } from '../storage/gateway-store.js';
import { HeldToolCalls } from './held-tool-calls.js';

let dir = '';
let store: GatewayStore | null = null;

function open(): HeldToolCalls {
  dir = mkdtempSync(join(tmpdir(), 'aduana-held-'));
  store = openGatewayStore(dir);
  return new HeldToolCalls(store.heldToolCalls);
}

afterEach(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('held tool calls', () => {
  it('a hold is found at once, before its write commits, and after it', async () => {
    const held = open();
    const key = HeldToolCalls.keyOf('t', 'a', 'crm', 'send_email', '{}');
    held.hold(key, 'dec_1');
    expect(held.decisionOf(key)).toBe('dec_1');
    await store!.root.flushed;
    expect(held.decisionOf(key)).toBe('dec_1');
  });

  it('a released approval is gone at once, so two calls in the same turn cannot both use it', async () => {
    const held = open();
    const key = HeldToolCalls.keyOf('t', 'a', 'crm', 'send_email', '{}');
    held.hold(key, 'dec_1');
    await store!.root.flushed;
    held.release(key);
    expect(held.decisionOf(key)).toBeUndefined();
    held.hold(key, 'dec_2');
    expect(held.decisionOf(key)).toBe('dec_2');
    await store!.root.flushed;
    expect(held.decisionOf(key)).toBe('dec_2');
  });

  it('the key tells apart who, where, which tool and which arguments', () => {
    const k = (...p: [string, string, string, string, string]) => HeldToolCalls.keyOf(...p);
    const base = k('t', 'a', 's', 'tool', '{"x":1}');
    expect(new Set([base, k('u', 'a', 's', 'tool', '{"x":1}'), k('t', 'b', 's', 'tool', '{"x":1}'), k('t', 'a', 'r', 'tool', '{"x":1}'), k('t', 'a', 's', 'other', '{"x":1}'), k('t', 'a', 's', 'tool', '{"x":2}')]).size).toBe(6);
  });
});
