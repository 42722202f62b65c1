import type { AgentSummary, ConsoleData, Costs, DecisionFilter, DecisionListPage, Overview } from '../../api/console/console-data.js';
import { DECISION_ID, pageDecisions, readsOnlyItsRows, startBelow } from '../../api/console/decision-list.js';
import { DecisionConsoleData } from '../../api/console/console-data.js';
import type { DecisionRecord } from '../../governance/decisions/decision-store.js';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import type { PgDecisionArchive } from '../decisions/pg-decision-archive.js';

/** Agents the console's page shows (the API pages through all of them). */
const AGENTS_SHOWN = 500;

/**
 * The console's data at the control plane: agents from PostgreSQL, decisions from the shipped ledgers with their
 * resolutions. Each page reads the newest CONSOLE_SCAN_LIMIT decisions once and computes from them exactly as the
 * embedded console does (the same code, over a snapshot).
 */
export class ArchiveConsoleData implements ConsoleData {
  constructor(
    private readonly decisionArchive: PgDecisionArchive,
    private readonly agents: AgentDirectory,
    private readonly scanLimit: number,
  ) {}

  /** One query: the page's rows and one more, or (filtered) the scan window below the cursor; then the embedded paging. */
  async decisions(tenantId: string, f: DecisionFilter): Promise<DecisionListPage> {
    const searched = DECISION_ID.test(f.search) ? await this.decisionArchive.get(tenantId, f.search) : undefined;
    const read = DECISION_ID.test(f.search) ? [] : await this.decisionArchive.recent(tenantId, readsOnlyItsRows(f) && !Number.isFinite(f.to) ? f.limit + 1 : this.scanLimit, startBelow(f));
    const recent = (limit: number, below: string | undefined) => (below === undefined ? read : read.filter((d) => d.decision_id < below)).slice(0, limit);
    return pageDecisions(recent, () => searched, f, this.scanLimit);
  }

  decision(tenantId: string, id: string): Promise<DecisionRecord | undefined> {
    return this.decisionArchive.get(tenantId, id);
  }

  async listAgents(tenantId: string, now: number): Promise<AgentSummary[]> {
    return (await this.#snapshot(tenantId)).listAgents(tenantId, now);
  }

  async overview(tenantId: string, fromMs: number, toMs: number, bucketCount: number): Promise<Overview> {
    return (await this.#snapshot(tenantId)).overview(tenantId, fromMs, toMs, bucketCount);
  }

  async costs(tenantId: string, fromMs: number, toMs: number): Promise<Costs> {
    return (await this.#snapshot(tenantId)).costs(tenantId, fromMs, toMs);
  }

  /** The embedded console's computation over what was read now (a decision list and an agent page). */
  async #snapshot(tenantId: string): Promise<DecisionConsoleData> {
    const [recent, page] = await Promise.all([this.decisionArchive.recent(tenantId, this.scanLimit), this.agents.list(tenantId, { limit: AGENTS_SHOWN })]);
    const store = { recent: () => recent, get: (_t: string, id: string) => recent.find((d) => d.decision_id === id) };
    const agents = { intervalMs: this.agents.intervalMs, list: () => page };
    return new DecisionConsoleData(store, agents, this.scanLimit);
  }
}
