import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type RootDatabase } from '@aduana/shared';
import { Ledger, type LedgerInput, type LedgerOptions } from '../../../src/ledger/index.js';

/** A real LMDB environment in a fresh temp dir, the way the gateway opens it (openStore), and ledgers over it. */
export class TempLedger {
  readonly dir: string;
  root: RootDatabase;
  ledger: Ledger;

  constructor(options: Partial<LedgerOptions> = {}) {
    this.dir = mkdtempSync(join(tmpdir(), 'aduana-ledger-'));
    this.root = openStore(this.dir, 'gateway');
    this.ledger = Ledger.open(this.root, { keyDir: this.dir, ...options });
  }

  /** Closes ledger and environment, opens both again: what a restart does. */
  async reopen(options: Partial<LedgerOptions> = {}): Promise<Ledger> {
    await this.ledger.close();
    await this.root.close();
    this.root = openStore(this.dir, 'gateway');
    this.ledger = Ledger.open(this.root, { keyDir: this.dir, ...options });
    return this.ledger;
  }

  async dispose(): Promise<void> {
    await this.ledger.close();
    await this.root.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function event(i: number, extra: Partial<LedgerInput> & { agent?: string } = {}): LedgerInput {
  const { agent, ...rest } = extra;
  return {
    event_type: 'tool_call',
    payload: { i, tool: 'search', args: { q: `query ${i}` } },
    metadata: agent ? { agent_id: agent } : {},
    decision: null,
    created_at: '2026-11-22T06:00:00.000Z',
    ...rest,
  };
}
