import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSetCookie } from 'cookie';
import { Agent, request } from 'undici';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { poll } from '../../shared/test/helpers/poll.js';

// No one but the guesser pays for wrong passwords (docs/authentication.md, "Login answers", "Device cookies").

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';

/** Clients on other loopback addresses: the gateway listens on 127.0.0.1, and on Linux all of 127/8 is loopback. */
const agents = new Map<string, Agent>();
function from(address: string): Agent {
  let a = agents.get(address);
  if (!a) agents.set(address, (a = new Agent({ localAddress: address })));
  return a;
}
afterAll(() => Promise.all([...agents.values()].map((a) => a.close())));

interface Attempt {
  outcome: 'session' | 'refused' | 'limited';
  /** Retry-After of a 429 (the API only: the console redirects to its form). */
  retryAfter: number;
  message: string;
  /** The device cookie's Set-Cookie, '' when none. */
  setDevice: string;
}

/** The `name=value` a browser sends back for a Set-Cookie. */
function pair(setCookie: string): string {
  const c = parseSetCookie(setCookie);
  return `${c.name}=${encodeURIComponent(c.value ?? '')}`;
}

function setCookies(headers: Record<string, string | string[] | undefined>): string[] {
  const v = headers['set-cookie'];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

interface LoginRoute {
  name: string;
  attempt(t: TestGateway, email: string, password: string, address: string, cookie?: string): Promise<Attempt>;
}

const apiLogin: LoginRoute = {
  name: 'POST /login',
  async attempt(t, email, password, address, cookie = '') {
    const res = await request(`${t.authUrl}/login`, {
      method: 'POST',
      dispatcher: from(address),
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify({ email, password }),
    });
    const body = (await res.body.json()) as { session_token?: string; error?: { type: string; message: string } };
    const setDevice = setCookies(res.headers).find((c) => c.startsWith('aduana_device=')) ?? '';
    if (res.statusCode === 200) {
      expect(body.session_token).toMatch(/^adu_ses_/);
      return { outcome: 'session', retryAfter: 0, message: '', setDevice };
    }
    expect(setDevice).toBe('');
    if (res.statusCode === 401) return { outcome: 'refused', retryAfter: 0, message: body.error?.message ?? '', setDevice };
    expect(res.statusCode, JSON.stringify(body)).toBe(429);
    expect(body.error?.type).toBe('rate_limit_exceeded');
    return { outcome: 'limited', retryAfter: Number(res.headers['retry-after']), message: body.error?.message ?? '', setDevice };
  },
};

const consoleLogin: LoginRoute = {
  name: 'POST /console/login',
  async attempt(t, email, password, address, cookie = '') {
    const form = await call(t.authUrl, 'GET', '/console/login', { dispatcher: from(address) });
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)?.[1] as string;
    const csrfCookie = pair(form.headers['set-cookie'] as string);
    const res = await request(`${t.authUrl}/console/login`, {
      method: 'POST',
      dispatcher: from(address),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie ? `${csrfCookie}; ${cookie}` : csrfCookie },
      body: `email=${encodeURIComponent(email)}&password=${encodeURIComponent(password)}&csrf=${csrf}`,
    });
    await res.body.dump();
    expect(res.statusCode).toBe(303);
    const cookies = setCookies(res.headers);
    const setDevice = cookies.find((c) => c.startsWith('aduana_device=')) ?? '';
    const location = res.headers['location'];
    if (location === '/console') {
      expect(cookies.some((c) => c.startsWith('aduana_session=adu_ses_'))).toBe(true);
      return { outcome: 'session', retryAfter: 0, message: '', setDevice };
    }
    expect(setDevice).toBe('');
    if (location === '/console/login?error=invalid_credentials') return { outcome: 'refused', retryAfter: 0, message: '', setDevice };
    expect(location).toMatch(/^\/console\/login\?error=login_(throttled|busy)$/);
    return { outcome: 'limited', retryAfter: 0, message: '', setDevice };
  },
};

async function createUser(t: TestGateway, email: string): Promise<void> {
  const r = await call(t.url, 'POST', '/admin/users', { token: t.adminToken, body: { email, name: email, role: 'admin', password: PASSWORD } });
  expect(r.status, r.text).toBe(201);
}

describe('wrong passwords from other addresses', () => {
  it('do not stop the right password from a new address: at most a wait of LOGIN_SLOWDOWN_MAX_S, told in Retry-After', async () => {
    const t = await startTestGateway({ passwordScryptLogN: 12 });
    try {
      await createUser(t, 'admin@victim.example');
      // Five strangers (the default per-account limit), one wrong password each.
      for (let i = 1; i <= 5; i++) expect((await apiLogin.attempt(t, 'admin@victim.example', WRONG, `127.0.1.${i}`)).outcome).toBe('refused');
      // More keep coming: each is let through or slowed down, none refuses the account for the window.
      for (let i = 6; i <= 12; i++) {
        const r = await apiLogin.attempt(t, 'admin@victim.example', WRONG, `127.0.1.${i}`);
        expect(r.outcome === 'refused' || (r.outcome === 'limited' && r.retryAfter <= 60), JSON.stringify(r)).toBe(true);
      }
      // The owner, from an address never seen: slowed down (a wait of seconds at most a minute), then signed in.
      let last: Attempt | undefined;
      for (let tries = 0; tries < 4; tries++) {
        last = await apiLogin.attempt(t, 'admin@victim.example', PASSWORD, '127.0.2.1');
        if (last.outcome !== 'limited') break;
        expect(last.retryAfter, last.message).toBeGreaterThanOrEqual(1);
        expect(last.retryAfter, last.message).toBeLessThanOrEqual(60);
        await sleep(last.retryAfter * 1000);
      }
      expect(last?.outcome).toBe('session');
    } finally {
      await t.close();
    }
  }, 120_000);

  it("one address's wrong passwords refuse that address on that account only, right password included", async () => {
    const t = await startTestGateway({ passwordScryptLogN: 12 });
    try {
      await createUser(t, 'ops@pair.example');
      await createUser(t, 'other@pair.example');
      for (let i = 0; i < 5; i++) expect((await apiLogin.attempt(t, 'ops@pair.example', WRONG, '127.0.3.1')).outcome).toBe('refused');
      const locked = await apiLogin.attempt(t, 'ops@pair.example', PASSWORD, '127.0.3.1');
      expect(locked.outcome).toBe('limited');
      // Until the window ends (LOGIN_FAILURE_WINDOW_S, 900 s).
      expect(locked.retryAfter).toBeGreaterThan(60);
      // That address may still sign in to another account.
      expect((await apiLogin.attempt(t, 'other@pair.example', PASSWORD, '127.0.3.1')).outcome).toBe('session');
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe.each([apiLogin, consoleLogin])('device cookies through $name', (route) => {
  it('a browser that signed in before signs in at once while strangers hammer the account, from any address', async () => {
    const t = await startTestGateway({ passwordScryptLogN: 12, cookieSecure: true });
    try {
      await createUser(t, 'boss@device.example');
      const first = await route.attempt(t, 'boss@device.example', PASSWORD, '127.0.4.1');
      expect(first.outcome).toBe('session');
      const issued = parseSetCookie(first.setDevice);
      expect(issued).toMatchObject({ name: 'aduana_device', httpOnly: true, secure: true, sameSite: 'strict', path: '/', maxAge: 90 * 86_400 });
      let device = pair(first.setDevice);

      // A guesser behind the owner's own address (a shared NAT) spends that address's tries on the account: without
      // its cookie, the owner's browser there is refused too.
      for (let i = 0; i < 5; i++) expect((await apiLogin.attempt(t, 'boss@device.example', WRONG, '127.0.4.1')).outcome).toBe('refused');
      expect((await route.attempt(t, 'boss@device.example', PASSWORD, '127.0.4.1')).outcome).toBe('limited');

      // Strangers from twenty addresses keep guessing; meanwhile the browser with the cookie signs in every time,
      // and each sign-in renews its cookie.
      const hammering = (async () => {
        for (let round = 0; round < 3; round++) for (let i = 1; i <= 20; i++) await apiLogin.attempt(t, 'boss@device.example', WRONG, `127.0.5.${i}`);
      })();
      for (let i = 0; i < 3; i++) {
        const r = await route.attempt(t, 'boss@device.example', PASSWORD, '127.0.4.1', device);
        expect(r.outcome, r.message).toBe('session');
        expect(r.setDevice).not.toBe('');
        device = pair(r.setDevice);
      }
      // From another address too: the cookie, not the address, is what is trusted.
      expect((await route.attempt(t, 'boss@device.example', PASSWORD, '127.0.6.2', device)).outcome).toBe('session');
      await hammering;
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('device cookies are bound to their account and counted', () => {
  it("another account's cookie, a forged one and one from before a password change exempt nothing", async () => {
    const t = await startTestGateway({ passwordScryptLogN: 12 });
    try {
      await createUser(t, 'a@bound.example');
      await createUser(t, 'b@bound.example');
      const a = await apiLogin.attempt(t, 'a@bound.example', PASSWORD, '127.0.7.1');
      const b = await apiLogin.attempt(t, 'b@bound.example', PASSWORD, '127.0.7.1', pair(a.setDevice));
      // One browser keeps an entry per account it signed in to.
      const both = pair(b.setDevice);
      expect(parseSetCookie(b.setDevice).value?.split('~')).toHaveLength(2);
      const onlyA = pair(a.setDevice);
      const value = parseSetCookie(b.setDevice).value ?? '';
      const forged = `aduana_device=${encodeURIComponent(`${value.slice(0, 50)}${value[50] === 'A' ? 'B' : 'A'}${value.slice(51)}`)}`;

      // This address has spent its tries on b: only a cookie valid for b is judged apart from them.
      for (let i = 0; i < 5; i++) expect((await apiLogin.attempt(t, 'b@bound.example', WRONG, '127.0.7.9')).outcome).toBe('refused');
      expect((await apiLogin.attempt(t, 'b@bound.example', PASSWORD, '127.0.7.9', onlyA)).outcome).toBe('limited');
      expect((await apiLogin.attempt(t, 'b@bound.example', PASSWORD, '127.0.7.9', forged)).outcome).toBe('limited');
      expect((await apiLogin.attempt(t, 'b@bound.example', PASSWORD, '127.0.7.9', both)).outcome).toBe('session');
      // A new password voids the account's device cookies.
      const record = t.gw.deps.users.byEmail('b@bound.example');
      if (!record?.password) throw new Error('no user');
      // (Written to the store as a password change would: only the salt matters here.)
      await t.gw.deps.store.users.put(['id', record.id], { ...record, password: { ...record.password, salt: Buffer.alloc(16, 7).toString('base64') } });
      expect((await apiLogin.attempt(t, 'b@bound.example', WRONG, '127.0.7.9', both)).outcome).toBe('limited');
    } finally {
      await t.close();
    }
  }, 60_000);

  it('a device cookie that keeps failing is refused itself, right password included, and nobody else is', async () => {
    const t = await startTestGateway({ passwordScryptLogN: 12 });
    try {
      await createUser(t, 'typo@device.example');
      const device = pair((await apiLogin.attempt(t, 'typo@device.example', PASSWORD, '127.0.10.1')).setDevice);
      for (let i = 0; i < 5; i++) expect((await apiLogin.attempt(t, 'typo@device.example', WRONG, `127.0.10.${i + 2}`, device)).outcome).toBe('refused');
      const locked = await apiLogin.attempt(t, 'typo@device.example', PASSWORD, '127.0.10.9', device);
      expect(locked.outcome).toBe('limited');
      expect(locked.message).toMatch(/from this browser/);
      expect(locked.retryAfter).toBeGreaterThan(60);
      // Its failures were the cookie's: a stranger's sign-in is neither slowed down nor refused.
      expect((await apiLogin.attempt(t, 'typo@device.example', PASSWORD, '127.0.10.10')).outcome).toBe('session');
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('client sources', () => {
  it('on a dual-stack listener, IPv4 clients are each their own source (not one IPv6 /64 of mapped addresses) and an IPv6 client is one too', async () => {
    const t = await startTestGateway({ passwordScryptLogN: 12, host: '::', loginFailuresPerAddress: 3 });
    try {
      const port = new URL(t.authUrl).port;
      const v4 = { ...t, authUrl: `http://127.0.0.1:${port}` };
      const v6 = { ...t, authUrl: `http://[::1]:${port}` };
      for (let i = 0; i < 3; i++) expect((await apiLogin.attempt(v4, `n${i}@mapped.example`, WRONG, '127.0.11.1')).outcome).toBe('refused');
      expect((await apiLogin.attempt(v4, 'n9@mapped.example', WRONG, '127.0.11.1')).message).toMatch(/from this address/);
      expect((await apiLogin.attempt(v4, 'n9@mapped.example', WRONG, '127.0.11.2')).outcome).toBe('refused');
      for (let i = 0; i < 3; i++) expect((await apiLogin.attempt(v6, `s${i}@six.example`, WRONG, '::1')).outcome).toBe('refused');
      expect((await apiLogin.attempt(v6, 's9@six.example', WRONG, '::1')).outcome).toBe('limited');
      expect((await apiLogin.attempt(v4, 's9@six.example', WRONG, '127.0.11.3')).outcome).toBe('refused');
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('password checks in flight', () => {
  it('eight addresses filling the slots do not refuse the sign-in of a browser with a device cookie', async () => {
    // The default cost and caps: each hash is long enough for the flood to hold every stranger's slot.
    const t = await startTestGateway({ passwordScryptLogN: 15, loginFailuresPerAccount: 10_000, loginFailuresPerAddress: 10_000 });
    try {
      await createUser(t, 'owner@slots.example');
      let device = pair((await apiLogin.attempt(t, 'owner@slots.example', PASSWORD, '127.0.12.1')).setDevice);
      let stop = false;
      let busy = 0;
      // Eight addresses, each two connections sending wrong passwords back to back.
      const flood = Array.from({ length: 16 }, async (_, i) => {
        for (let n = 0; !stop; n++) {
          const r = await apiLogin.attempt(t, `f${i}-${n}@slots.example`, WRONG, `127.0.13.${(i % 8) + 1}`);
          if (r.outcome === 'limited') busy++;
        }
      });
      try {
        // A stranger from a fresh address is refused for want of a slot: the flood holds the strangers' share.
        await poll(() => apiLogin.attempt(t, 'nobody@slots.example', WRONG, '127.0.14.1'), { what: 'the strangers’ slots to be full', until: (r) => r.outcome === 'limited' && /in progress/.test(r.message), timeoutMs: 30_000 });
        for (let i = 0; i < 8; i++) {
          const r = await apiLogin.attempt(t, 'owner@slots.example', PASSWORD, '127.0.12.1', device);
          expect(r.outcome, r.message).toBe('session');
          device = pair(r.setDevice);
        }
      } finally {
        stop = true;
        await Promise.all(flood);
      }
      expect(busy).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  }, 120_000);
});
