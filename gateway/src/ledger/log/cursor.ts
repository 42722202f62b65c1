import { LedgerError } from '../errors.js';

// A cursor is the last seq of the previous page, with the order it was taken in: opaque to clients (base64url), so
// its format can change without breaking them.
export function encodeCursor(order: 'asc' | 'desc', seq: number): string {
  return Buffer.from(`${order === 'asc' ? 'a' : 'd'}${seq}`).toString('base64url');
}

export function decodeCursor(cursor: string, order: 'asc' | 'desc'): number {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const match = /^([ad])([1-9][0-9]{0,15})$/.exec(text);
  if (!match || (match[1] === 'a') !== (order === 'asc')) throw new LedgerError('invalid_cursor', 'cursor is not one this list returned');
  const seq = Number(match[2]);
  if (!Number.isSafeInteger(seq)) throw new LedgerError('invalid_cursor', 'cursor is not one this list returned');
  return seq;
}
