// The part of fs-native-extensions (no types of its own) that data-dir-lock.ts uses.
declare module 'fs-native-extensions' {
  /** An advisory lock on the open file `fd` (exclusive unless `shared`): true when granted, false when another holds it. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
}
