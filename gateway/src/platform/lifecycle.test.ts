import { describe, expect, it } from 'vitest';
import { Lifecycle } from './lifecycle.js';

describe('Lifecycle', () => {
  it('closes the parts in the reverse of the order they were opened, once', async () => {
    const closed: string[] = [];
    const life = new Lifecycle(() => {});
    for (const name of ['egress', 'store', 'ledger', 'servers']) life.onClose(name, () => void closed.push(name));
    await Promise.all([life.close(), life.close()]);
    await life.close();
    expect(closed).toEqual(['servers', 'ledger', 'store', 'egress']);
  });

  it('a start that fails part-way closes what it opened, in reverse, and throws its error; what it had not opened is not closed', async () => {
    const closed: string[] = [];
    const life = new Lifecycle(() => {});
    const err = await life
      .start(async () => {
        life.own('store', { close: () => void closed.push('store') });
        life.own('ledger', { close: async () => void closed.push('ledger') });
        throw new Error('cannot listen on 127.0.0.1:8080: the port is in use');
      })
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/port is in use/);
    expect(closed).toEqual(['ledger', 'store']);
  });

  it('a closer that throws is reported, and the others still close', async () => {
    const closed: string[] = [];
    const reported: string[] = [];
    const life = new Lifecycle((e, name) => reported.push(`${name}: ${(e as Error).message}`));
    life.onClose('store', () => void closed.push('store'));
    life.onClose('telemetry', () => Promise.reject(new Error('exporter gone')));
    life.onClose('servers', () => void closed.push('servers'));
    await life.close();
    expect(closed).toEqual(['servers', 'store']);
    expect(reported).toEqual(['telemetry: exporter gone']);
  });

  it('refuses a part registered once closing began: it would never be closed', async () => {
    const life = new Lifecycle(() => {});
    void life.close();
    expect(() => life.onClose('late', () => {})).toThrow(/while closing/);
  });
});
