import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSetCookie } from 'cookie';
import { describe, expect, it } from 'vitest';
import type { UserRecord } from '../users/user-record.js';
import { DeviceCookies, deviceCookieKey } from './device-cookies.js';

function user(id: string, salt = 'c2FsdHNhbHRzYWx0c2FsdA=='): UserRecord {
  return { id, tenant_id: 't', email: `${id}@x.example`, name: id, role: 'viewer', provider: 'password', avatar_url: null, password: { algorithm: 'scrypt', log_n: 12, r: 8, p: 1, salt, hash: '' }, oidc: null, created_at: '', disabled_at: null };
}

const valueOf = (setCookie: string): string => parseSetCookie(setCookie).value ?? '';
const sent = (setCookie: string): string => `aduana_device=${encodeURIComponent(valueOf(setCookie))}`;

describe('device cookies', () => {
  it('are valid for their account until they expire, under their key only', () => {
    let now = Date.UTC(2030, 0, 1);
    const key = Buffer.alloc(32, 1);
    const cookies = new DeviceCookies({ key, ttlMs: 86_400_000, secure: false }, () => now);
    const cookie = sent(cookies.issue('', user('u1')));
    expect(cookies.trusted(cookie, user('u1'))).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(cookies.trusted(cookie, user('u2'))).toBe('');
    expect(cookies.trusted(cookie, user('u1', 'b3RoZXJzYWx0b3RoZXJzYQ=='))).toBe('');
    expect(cookies.trusted(cookie, undefined)).toBe('');
    expect(new DeviceCookies({ key: Buffer.alloc(32, 2), ttlMs: 86_400_000, secure: false }, () => now).trusted(cookie, user('u1'))).toBe('');
    now += 86_400_000;
    expect(cookies.trusted(cookie, user('u1'))).toBe('');
  });

  it('keep one entry per account, the newest four, and renew the account signing in', () => {
    const cookies = new DeviceCookies({ key: Buffer.alloc(32, 1), ttlMs: 86_400_000, secure: true });
    let cookie = '';
    for (const id of ['a', 'b', 'c', 'd', 'e']) cookie = sent(cookies.issue(cookie, user(id)));
    expect(['a', 'b', 'c', 'd', 'e'].map((id) => cookies.trusted(cookie, user(id)) !== '')).toEqual([false, true, true, true, true]);
    const before = cookies.trusted(cookie, user('c'));
    const renewed = cookies.issue(cookie, user('c'));
    expect(parseSetCookie(renewed)).toMatchObject({ httpOnly: true, secure: true, sameSite: 'strict', path: '/', maxAge: 86_400 });
    const after = sent(renewed);
    expect(valueOf(renewed).split('~')).toHaveLength(4);
    expect(cookies.trusted(after, user('c'))).not.toBe(before);
    expect(['b', 'c', 'd', 'e'].every((id) => cookies.trusted(after, user(id)) !== '')).toBe(true);
  });

  it('ignore what was not made here: junk, an over-long value', () => {
    const cookies = new DeviceCookies({ key: Buffer.alloc(32, 1), ttlMs: 86_400_000, secure: false });
    const good = valueOf(cookies.issue('', user('u1')));
    expect(cookies.trusted(`aduana_device=${'x'.repeat(300)}~${good}`, user('u1'))).toBe('');
    expect(cookies.trusted('aduana_device=%%%; other=1', user('u1'))).toBe('');
    expect(cookies.trusted(`aduana_device=junk~${good}`, user('u1'))).not.toBe('');
  });

  it('take their key from the setting, or make one in the data directory once (mode 0600) and keep it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aduana-device-key-'));
    try {
      expect(deviceCookieKey('ab'.repeat(32), dir)).toEqual(Buffer.from('ab'.repeat(32), 'hex'));
      const made = deviceCookieKey('', dir);
      expect(made).toHaveLength(32);
      expect(deviceCookieKey('', dir)).toEqual(made);
      const file = join(dir, 'login-device-cookie.key');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8').trim()).toBe(made.toString('hex'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
