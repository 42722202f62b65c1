import type { Profile } from '../src/checks/check.js';
import { Derived } from '../src/checks/derived.js';
import { CHECKS } from '../src/checks/registry.js';
import { runCheck, type CheckResult } from '../src/checks/runner.js';
import type { Snapshot } from '../src/snapshot/snapshot.js';

/** Runs one registered check by id over a snapshot, as the assessment would. */
export function runOne(id: string, snapshot: Snapshot, profile: Profile = 'content'): CheckResult {
  const check = CHECKS.find((c) => c.id === id);
  if (!check) throw new Error(`no check ${id}`);
  return runCheck(check, snapshot, profile, new Derived());
}
