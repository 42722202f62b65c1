import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDataDir } from './data-dir-lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'aduana-lock-'));
  dirs.push(d);
  return d;
};

describe('lockDataDir', () => {
  it('refuses a second holder of one environment, naming the directory and the first holder, until it is released', () => {
    const dir = tempDir();
    const first = lockDataDir(dir, 'gateway', 'aduana gateway');
    expect(readFileSync(first.path, 'utf8')).toMatch(new RegExp(`^aduana gateway, pid ${process.pid} on `));
    expect(() => lockDataDir(dir, 'gateway', 'aduana control')).toThrow(`DATA_DIR ${dir} is in use by another process (aduana gateway, pid ${process.pid}`);
    // The refused attempt left the holder's note as it was.
    expect(readFileSync(first.path, 'utf8')).toMatch(/^aduana gateway, /);
    first.release();
    const second = lockDataDir(dir, 'gateway', 'aduana control');
    expect(readFileSync(second.path, 'utf8')).toMatch(/^aduana control, /);
    second.release();
  });

  it('locks each environment on its own, and creates a missing data directory', () => {
    const dir = join(tempDir(), 'new', 'data');
    const gateway = lockDataDir(dir, 'gateway', 'aduana gateway');
    const other = lockDataDir(dir, 'other', 'aduana other');
    expect(other.path).toBe(join(dir, 'other.lock'));
    gateway.release();
    other.release();
  });
});
