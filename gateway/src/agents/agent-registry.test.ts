import { describe, expect, it } from 'vitest';
import { tempGatewayStores } from '../../test/helpers/temp-gateway-store.js';
import { AgentRegistry } from './agent-registry.js';

const stores = tempGatewayStores('aduana-agents-');

const OPTIONS = { intervalMs: 60_000, requireRegistered: false, maxPerTenant: 10_000, flushMs: 60_000 };

describe('AgentRegistry flush', () => {
  it('writes every changed agent across its chunks, and a flush asked for meanwhile waits for them', async () => {
    const store = stores.open();
    const t = 1_800_000_000_000;
    const registry = new AgentRegistry(store.agents, { ...OPTIONS, now: () => t });
    for (let i = 0; i < 1000; i++) registry.admit('acme', `bot-${String(i)}`, t);
    const first = registry.flush();
    // Changed while the first flush is between chunks: an agent already queued, and one it does not hold.
    registry.admit('acme', 'bot-999', t + 5_000);
    registry.admit('acme', 'late', t + 6_000);
    let secondDone = false;
    let firstDone = false;
    void first.then(() => (firstDone = true));
    await registry.flush().then(() => {
      secondDone = true;
      expect(firstDone).toBe(true);
    });
    expect(secondDone).toBe(true);
    // What a restart loads: all 1,001 agents, each as it last was.
    const reloaded = new AgentRegistry(store.agents, OPTIONS);
    expect([...reloaded.all()]).toHaveLength(1001);
    expect(reloaded.get('acme', 'bot-999')?.lastSeen).toBe(t + 5_000);
    expect(reloaded.get('acme', 'late')?.lastSeen).toBe(t + 6_000);
    expect(reloaded.get('acme', 'bot-0')?.lastSeen).toBe(t);
  });
});
