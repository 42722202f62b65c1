import { afterAll, describe, expect, it } from 'vitest';
import { Agent, type Dispatcher } from 'undici';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { poll } from '../../shared/test/helpers/poll.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';

/** A second client address: the gateway listens on 127.0.0.1, and on Linux all of 127/8 is loopback. */
const otherAddress = new Agent({ localAddress: '127.0.0.2' });
afterAll(() => otherAddress.close());

/** What a login attempt came to, whichever route it went through. */
type Outcome = 'session' | 'refused' | 'limited';

interface LoginRoute {
  name: string;
  /** Prepares the route on a gateway (the console's sign-in form needs its CSRF cookie) and returns the attempt. */
  prepare(t: TestGateway): Promise<(email: string, password: string, dispatcher?: Dispatcher) => Promise<Outcome>>;
}

const apiLogin: LoginRoute = {
  name: 'POST /login',
  async prepare(t) {
    return async (email, password, dispatcher) => {
      const r = await call(t.authUrl, 'POST', '/login', { body: { email, password }, ...(dispatcher ? { dispatcher } : {}) });
      if (r.status === 200) return 'session';
      if (r.status === 401) return (expectEnvelope(r, 401, 'authentication_error'), 'refused');
      expectEnvelope(r, 429, 'rate_limit_exceeded');
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      return 'limited';
    };
  },
};

const consoleLogin: LoginRoute = {
  name: 'POST /console/login',
  async prepare(t) {
    const form = await call(t.authUrl, 'GET', '/console/login');
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)?.[1] as string;
    const cookie = (form.headers['set-cookie'] as string).split(';')[0] as string;
    return async (email, password, dispatcher) => {
      const rawBody = `email=${encodeURIComponent(email)}&password=${encodeURIComponent(password)}&csrf=${csrf}`;
      const r = await call(t.authUrl, 'POST', '/console/login', { rawBody, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, ...(dispatcher ? { dispatcher } : {}) });
      expect(r.status, r.text).toBe(303);
      const location = r.headers.location;
      if (location === '/console') {
        expect(r.headers['set-cookie']).toMatch(/^aduana_session=adu_ses_/);
        return 'session';
      }
      expect(r.headers['set-cookie'] ?? '').not.toMatch(/aduana_session=adu_ses_/);
      if (location === '/console/login?error=invalid_credentials') return 'refused';
      expect(location).toMatch(/^\/console\/login\?error=login_(throttled|busy)$/);
      return 'limited';
    };
  },
};

function tally(outcomes: Outcome[]): Record<Outcome, number> {
  const n: Record<Outcome, number> = { session: 0, refused: 0, limited: 0 };
  for (const o of outcomes) n[o]++;
  return n;
}

function sessionCount(t: TestGateway): number {
  return [...t.gw.deps.store.sessions.getKeys()].length;
}

async function createUser(t: TestGateway, email: string): Promise<void> {
  const r = await call(t.url, 'POST', '/admin/users', { token: t.adminToken, body: { email, name: email, role: 'viewer', password: PASSWORD } });
  expect(r.status, r.text).toBe(201);
}

describe.each([apiLogin, consoleLogin])('concurrent logins through $name', (route) => {
  it('wrong passwords sent at once get no more than the account limit of tries; the right one sent once it is reached gets no session', async () => {
    // The in-flight caps are out of the way here: what is tested is that every try is counted before its hash runs.
    const t = await startTestGateway({ passwordScryptLogN: 12, loginFailuresPerAccount: 5, loginFailuresPerAddress: 10_000, loginHashesInFlightMax: 10_000, loginHashesInFlightPerAddress: 10_000 });
    try {
      await createUser(t, 'target@race.example');
      const attempt = await route.prepare(t);
      const sessionsBefore = sessionCount(t);
      const wrong = Array.from({ length: 39 }, () => attempt('target@race.example', WRONG));
      await poll(() => t.gw.deps.passwordLogin.failures.failuresOf('target@race.example', '127.0.0.1') >= 5, { what: 'the account limit to be reached' });
      const right = await attempt('target@race.example', PASSWORD);
      const n = tally(await Promise.all(wrong));
      expect(n, JSON.stringify(n)).toEqual({ session: 0, refused: 5, limited: 34 });
      expect(right).toBe('limited');
      expect(sessionCount(t)).toBe(sessionsBefore);
    } finally {
      await t.close();
    }
  });

  it('200 wrong logins at once from one address: the address limit holds, the rest are 429', async () => {
    const t = await startTestGateway({ passwordScryptLogN: 12, loginFailuresPerAccount: 10_000, loginFailuresPerAddress: 20, loginHashesInFlightMax: 10_000, loginHashesInFlightPerAddress: 10_000 });
    try {
      const attempt = await route.prepare(t);
      const n = tally(await Promise.all(Array.from({ length: 200 }, (_, i) => attempt(`u${i}@flood.example`, WRONG))));
      expect(n, JSON.stringify(n)).toEqual({ session: 0, refused: 20, limited: 180 });
    } finally {
      await t.close();
    }
  });

  it("a flood of bad logins from one address is capped in flight (429), and another address's login goes through", async () => {
    // The default scrypt cost: each hash takes long enough that the flood is in flight together.
    const t = await startTestGateway({ passwordScryptLogN: 15, loginFailuresPerAccount: 10_000, loginFailuresPerAddress: 10_000, loginHashesInFlightMax: 8, loginHashesInFlightPerAddress: 2 });
    try {
      await createUser(t, 'bystander@busy.example');
      const attempt = await route.prepare(t);
      const flood = Array.from({ length: 80 }, (_, i) => attempt(`f${i}@busy.example`, WRONG));
      const bystander = await attempt('bystander@busy.example', PASSWORD, otherAddress);
      const n = tally(await Promise.all(flood));
      expect(bystander).toBe('session');
      expect(n.session).toBe(0);
      expect(n.limited, JSON.stringify(n)).toBeGreaterThan(0);
      expect(n.refused + n.limited).toBe(80);
    } finally {
      await t.close();
    }
  }, 60_000);
});
