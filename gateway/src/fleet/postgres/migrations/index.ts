import { migration001Core } from './001-core.js';
import { LEDGER_MIGRATION } from './002-ledger.js';
import { AGENTS_DECISIONS_MIGRATION } from './003-agents-decisions.js';
import { TELEMETRY_MIGRATION } from './004-telemetry.js';
import { CHAIN_BINDING_MIGRATION } from './005-chain-binding.js';
import { PLAN_CHANGED_MIGRATION } from './006-plan-changed.js';
import { REQUEST_LOG_MIGRATION } from './007-request-log.js';
import { ROUTES_MIGRATION } from './008-routes.js';

/**
 * The PostgreSQL schema, versioned in the repository: each migration is applied once, in id order, at start-up.
 * SQL lives in TypeScript modules so the build carries it. Never edit an applied migration: add the next one.
 */
export interface Migration {
  /** `NNN_name`, sorted by its number. */
  readonly id: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [migration001Core, LEDGER_MIGRATION, AGENTS_DECISIONS_MIGRATION, TELEMETRY_MIGRATION, CHAIN_BINDING_MIGRATION, PLAN_CHANGED_MIGRATION, REQUEST_LOG_MIGRATION, ROUTES_MIGRATION];
