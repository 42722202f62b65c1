import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { Agent, Pool, envHttpProxyAgent, undiciErrors, request } from './undici-parts.js';

describe('undici parts loaded without its index', () => {
  it('are the very classes and errors undici exports', () => {
    expect(Pool).toBe(undici.Pool);
    expect(Agent).toBe(undici.Agent);
    expect(undiciErrors).toBe(undici.errors);
    expect(new undiciErrors.HeadersTimeoutError()).toBeInstanceOf(undici.errors.UndiciError);
  });

  it("the egress proxy agent, loaded on first use, is undici's EnvHttpProxyAgent", async () => {
    const agent = envHttpProxyAgent({ httpProxy: 'http://127.0.0.1:9', httpsProxy: '', noProxy: '' });
    expect(agent).toBeInstanceOf(undici.EnvHttpProxyAgent);
    await agent.close();
  });

  it('request goes through a dispatcher made from the loaded parts', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => res.end(`${req.method} ${req.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const agent = new Agent();
    try {
      const res = await request(`http://127.0.0.1:${port}/path?q=1`, { method: 'POST', body: 'x', dispatcher: agent });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toBe('POST /path?q=1');
    } finally {
      await agent.close();
      server.close();
    }
  });
});
