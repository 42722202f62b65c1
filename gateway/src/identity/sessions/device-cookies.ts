import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEVICE_COOKIE, cookieValue, setCookie } from '../../platform/cookies.js';
import type { UserRecord } from '../users/user-record.js';

/** The device-cookie settings. */
export interface DeviceCookieOptions {
  /** The HMAC key (32 bytes). */
  key: Buffer;
  /** How long a device cookie is honoured after the sign-in that issued it, ms. */
  ttlMs: number;
  secure: boolean;
}

/** Accounts one browser keeps a device cookie for (newest first): more are dropped, the oldest first. */
const ENTRIES_MAX = 4;
const ENTRY = /^[A-Za-z0-9_-]{22}\.[0-9a-z]{1,10}\.[A-Za-z0-9_-]{22}$/;
/** Longer than ENTRIES_MAX entries can be: such a cookie was not made here and is not read. */
const VALUE_MAX = 256;
/** A clock a little ahead at the replica that issued a cookie does not void it. */
const SKEW_S = 300;

/**
 * Device cookies (docs/authentication.md, "Device cookies"): after a successful password sign-in the browser gets a
 * cookie that binds it to the account, so that later sign-ins from it are judged apart from a stranger's. Each entry
 * is `nonce.issued.mac`: a random 16-byte nonce (what the browser's failures are counted by), the issue time in
 * seconds, and an HMAC-SHA256 (truncated to 16 bytes) over the user's id, the salt of the user's password hash, the
 * nonce and the time. Nothing in it names the account; a new password voids every device cookie of the account.
 */
export class DeviceCookies {
  constructor(
    private readonly opts: DeviceCookieOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** The nonce of the entry in the Cookie header that is valid for `user`, or '' when there is none. */
  trusted(cookieHeader: string, user: UserRecord | undefined): string {
    const salt = user?.password?.salt;
    if (!user || salt === undefined) return '';
    const nowS = Math.floor(this.now() / 1000);
    for (const entry of this.#entries(cookieHeader)) {
      const [nonce, issued, mac] = entry.split('.') as [string, string, string];
      const issuedS = parseInt(issued, 36);
      if (!this.#fresh(issuedS, nowS)) continue;
      const want = this.#mac(user.id, salt, nonce, issued);
      const given = Buffer.from(mac, 'base64url');
      if (given.length === want.length && timingSafeEqual(given, want)) return nonce;
    }
    return '';
  }

  /**
   * The Set-Cookie that binds this browser to `user` after a successful sign-in: a new entry first, then the browser's
   * other unexpired entries (other accounts signed in from it), this account's older one dropped.
   */
  issue(cookieHeader: string, user: UserRecord): string {
    const salt = user.password?.salt ?? '';
    const nowS = Math.floor(this.now() / 1000);
    const nonce = randomBytes(16).toString('base64url');
    const issued = nowS.toString(36);
    const entries = [`${nonce}.${issued}.${this.#mac(user.id, salt, nonce, issued).toString('base64url')}`];
    const mine = this.trusted(cookieHeader, user);
    for (const entry of this.#entries(cookieHeader)) {
      if (entries.length === ENTRIES_MAX) break;
      if ((mine === '' || !entry.startsWith(`${mine}.`)) && this.#fresh(parseInt(entry.split('.')[1] as string, 36), nowS)) entries.push(entry);
    }
    return setCookie(DEVICE_COOKIE, entries.join('~'), { maxAge: Math.floor(this.opts.ttlMs / 1000), path: '/', sameSite: 'Strict', secure: this.opts.secure });
  }

  #entries(cookieHeader: string): string[] {
    const value = cookieValue(cookieHeader, DEVICE_COOKIE);
    if (value === '' || value.length > VALUE_MAX) return [];
    return value.split('~', ENTRIES_MAX).filter((e) => ENTRY.test(e));
  }

  #fresh(issuedS: number, nowS: number): boolean {
    return issuedS <= nowS + SKEW_S && (nowS - issuedS) * 1000 < this.opts.ttlMs;
  }

  #mac(userId: string, salt: string, nonce: string, issued: string): Buffer {
    return createHmac('sha256', this.opts.key).update(`aduana-device\n${userId}\n${salt}\n${nonce}\n${issued}`).digest().subarray(0, 16);
  }
}

const KEY_FILE = 'login-device-cookie.key';
const HEX64 = /^[0-9a-fA-F]{64}$/;

/**
 * The device cookies' key: LOGIN_DEVICE_COOKIE_KEY when set (the same at every replica that signs people in), else one
 * made at the first start and kept in DATA_DIR (mode 0600), so a restart keeps the browsers' cookies valid.
 */
export function deviceCookieKey(setting: string, dataDir: string): Buffer {
  if (setting !== '') return Buffer.from(setting, 'hex');
  const file = join(dataDir, KEY_FILE);
  try {
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const text = readFileSync(file, 'utf8').trim();
  if (!HEX64.test(text)) throw new Error(`${file}: not a device-cookie key (64 hexadecimal characters); delete it to have a new one made`);
  return Buffer.from(text, 'hex');
}
