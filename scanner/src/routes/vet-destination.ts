import { isNetGuardError, type NetGuard } from '@aduana/shared';

/**
 * Asks the address guard about the target before a quota unit is spent, so a private, loopback or metadata URL is a
 * 400 that costs nothing. A name that does not resolve is left to the work itself, which answers 502 for it.
 */
export async function refuseBlockedDestination(guard: NetGuard, target: URL): Promise<void> {
  try {
    await guard.check(target);
  } catch (error) {
    if (isNetGuardError(error) && error.code === 'dns') return;
    throw error;
  }
}
