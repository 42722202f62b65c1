import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { NetGuard, type HostLookup } from './net-guard.js';
import { NetGuardError } from './net-guard-error.js';

async function refusal(guard: NetGuard, url: string): Promise<NetGuardError> {
  try {
    await guard.check(url);
  } catch (error) {
    if (error instanceof NetGuardError) return error;
    throw error;
  }
  throw new Error(`${url} was not refused`);
}

describe('NetGuard.check with private targets refused (the default)', () => {
  const guard = new NetGuard();

  it.each([
    'http://127.0.0.1/',
    'http://localhost/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://0x7f.1/',
    'http://１２７.０.０.１/', // fullwidth digits and dots
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::7f00:1]/',
    'http://[::]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://172.31.255.255/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://0/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://224.0.0.1/',
    'http://198.18.0.1/',
    'https://127.0.0.1:8443/',
  ])('refuses %s as blocked', async (url) => {
    const error = await refusal(guard, url);
    expect(error.code).toBe('blocked');
  });

  it('shows that WHATWG URL normalises the odd spellings it is relying on', () => {
    for (const spelling of ['2130706433', '0x7f000001', '0177.0.0.1', '127.1', '0x7f.1', '１２７.０.０.１']) {
      expect(new URL(`http://${spelling}/`).hostname).toBe('127.0.0.1');
    }
  });

  it('refuses a host name when any of its addresses is private', async () => {
    const lookup: HostLookup = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.1', family: 4 },
    ];
    const error = await refusal(new NetGuard({ lookup }), 'https://looks-public.example/');
    expect(error.code).toBe('blocked');
    expect(error.message).toContain('10.0.0.1');
  });

  it('refuses a host name that resolves to loopback', async () => {
    const lookup: HostLookup = async () => [{ address: '127.0.0.1', family: 4 }];
    expect((await refusal(new NetGuard({ lookup }), 'http://rebind.example/')).code).toBe('blocked');
  });

  it('accepts a host name whose addresses are all public', async () => {
    const lookup: HostLookup = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ];
    const target = await new NetGuard({ lookup }).check('https://example.org/a?b=1');
    expect(target.hostname).toBe('example.org');
    expect(target.isIpLiteral).toBe(false);
    expect(target.addresses.map((a) => a.address)).toEqual(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
  });

  it('reports a name that does not resolve as dns', async () => {
    const lookup: HostLookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect((await refusal(new NetGuard({ lookup }), 'http://nowhere.invalid/')).code).toBe('dns');
    expect((await refusal(new NetGuard({ lookup: async () => [] }), 'http://empty.example/')).code).toBe('dns');
  });

  it('refuses localhost names in any case, trailing dot or not, as loopback and without a lookup', async () => {
    let lookups = 0;
    const lookup: HostLookup = async () => {
      lookups++;
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const guard = new NetGuard({ lookup });
    for (const url of ['http://localhost./', 'http://LOCALHOST./', 'https://LocalHost.:8443/x', 'http://localhost/', 'http://app.localhost./', 'http://A.B.LOCALHOST/']) {
      expect((await refusal(guard, url)).code, url).toBe('blocked');
    }
    expect(lookups).toBe(0);
    // A name that merely contains the word is an ordinary name.
    expect((await refusal(guard, 'http://localhost.example/')).code).toBe('dns');
  });

  it.each([
    'ftp://example.org/',
    'javascript:alert(1)',
    'data:text/html,<h1>x</h1>',
    'file:///etc/passwd',
    'ws://example.org/',
    'http://user:secret@example.org/',
    'http://user@example.org/',
    'example.org',
    '',
  ])('refuses %s as invalid_url', async (url) => {
    const error = await refusal(guard, url);
    expect(error.code).toBe('invalid_url');
    expect(error.target).not.toContain('secret');
  });
});

describe('NetGuard with an allow-list', () => {
  it('admits only the listed ranges and still refuses mapped spellings and metadata', async () => {
    const guard = new NetGuard({ allowPrivate: ['127.0.0.0/8', '169.254.0.0/16'] });
    expect((await guard.check('http://127.0.0.1:1234/')).addresses).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect((await guard.check('http://2130706433/')).url.hostname).toBe('127.0.0.1');
    expect((await refusal(guard, 'http://[::ffff:127.0.0.1]/')).code).toBe('blocked');
    expect((await refusal(guard, 'http://[::1]/')).code).toBe('blocked');
    expect((await refusal(guard, 'http://10.0.0.1/')).code).toBe('blocked');
    expect((await refusal(guard, 'http://169.254.169.254/')).code).toBe('blocked');
  });
});

describe('NetGuard dispatcher pinning', () => {
  let server: Server;
  let port: number;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      res.end('pinned');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('connects to the checked address without a second lookup, keeping the host name in Host', async () => {
    // A rebinding resolver: first answer allowed, every later answer private. Only the first may ever be used.
    let calls = 0;
    const lookup: HostLookup = async () => (++calls === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.1', family: 4 }]);
    const guard = new NetGuard({ allowPrivate: ['127.0.0.1/32'], lookup });
    try {
      const target = await guard.check(`http://site.test:${port}/x`);
      for (let i = 0; i < 2; i++) {
        const res = await request(target.url, { dispatcher: guard.dispatcherFor(target), reset: true });
        expect(await res.body.text()).toBe('pinned');
      }
      expect(calls).toBe(1);
      expect(seen.at(-1)?.host).toBe(`site.test:${port}`);
    } finally {
      await guard.close();
    }
  });

  it('hands no dispatcher for a target it did not check', async () => {
    const guard = new NetGuard({ allowPrivate: ['127.0.0.0/8'] });
    const forged = { url: new URL('http://10.0.0.1/'), hostname: '10.0.0.1', isIpLiteral: true, addresses: [{ address: '10.0.0.1', family: 4 as const }] };
    expect(() => guard.dispatcherFor(forged)).toThrow(NetGuardError);
    await guard.close();
  });

  it('refuses, through the pinned dispatcher, a host other than the checked one', async () => {
    const guard = new NetGuard({ allowPrivate: ['127.0.0.1/32'], lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    try {
      const target = await guard.check(`http://site.test:${port}/`);
      const before = seen.length;
      await expect(request(`http://other.test:${port}/`, { dispatcher: guard.dispatcherFor(target) })).rejects.toThrow(/unchecked host/);
      expect(seen.length).toBe(before);
    } finally {
      await guard.close();
    }
  });
});
