import { GatewayError } from '../../errors.js';
import type { HttpServer, Reply } from '../../http/server.js';
import { PAGE, htmlReply } from './console-route-kit.js';
import type { ConsoleLedger } from './console-ledger.js';
import { viewerOf } from './console-session.js';
import { entriesSection, checkpointsPage, ledgerEntryPage } from './pages/ledger-browser-page.js';
import { ledgerPage } from './pages/read-pages.js';

const PAGE_SIZE = 50;
/** A ledger cursor as the ledger makes them (base64url); anything longer is no cursor of ours. */
const CURSOR = /^[A-Za-z0-9_-]{1,64}$/;
/** An entry's seq: anything else names no entry (refused before the session guard, as the decision page's id). */
const SEQ = /^[1-9][0-9]{0,15}$/;

const html = (raw: string): Reply => htmlReply(200, raw);

/**
 * The ledger browser (docs/console.md, "Ledger browser"): the ledger page with the tenant's entries newest first,
 * an entry's page with its inclusion proof, the signed checkpoints. Every read is the caller's tenant's chain only.
 */
export function registerLedgerBrowserRoutes(server: HttpServer, ledger: ConsoleLedger): void {
  server.route('get', '/console/ledger', PAGE, async (ctx) => {
    const v = viewerOf(ctx);
    const tenantId = v.principal.tenantId;
    const cursor = ctx.query.get('cursor');
    if (cursor !== null && !CURSOR.test(cursor)) throw new GatewayError('invalid_request', 'cursor: not one this list returned');
    const { size, checkpoint } = await ledger.summary(tenantId);
    const entries = ledger.entries ? await ledger.entries(tenantId, cursor, PAGE_SIZE) : null;
    return html(ledgerPage(v, size, checkpoint, null, entriesSection(entries, cursor !== null)));
  });

  server.route('get', '/console/ledger/entries/:seq', { ...PAGE, params: SEQ }, async (ctx) => {
    const v = viewerOf(ctx);
    const raw = ctx.params[0] as string;
    const seq = Number(raw);
    if (!ledger.entry) throw new GatewayError('not_found', 'entries are read per chain at this control plane (GET /v1/events)');
    const view = Number.isSafeInteger(seq) ? await ledger.entry(v.principal.tenantId, seq) : null;
    if (!view?.entry) throw new GatewayError('not_found', 'no such ledger entry');
    return html(ledgerEntryPage(v, { ...view, entry: view.entry }));
  });

  server.route('get', '/console/ledger/checkpoints', PAGE, async (ctx) => {
    const v = viewerOf(ctx);
    const fromText = ctx.query.get('from');
    const from = fromText === null ? 0 : Number(fromText);
    if (fromText !== null && !(/^\d{1,16}$/.test(fromText) && Number.isSafeInteger(from))) throw new GatewayError('invalid_request', 'from: a tree size');
    if (!ledger.checkpoints) return html(checkpointsPage(v, null, null, false));
    const read = await ledger.checkpoints(v.principal.tenantId, from, PAGE_SIZE + 1);
    const next = read.length > PAGE_SIZE ? read[PAGE_SIZE]!.tree_size : null;
    return html(checkpointsPage(v, read.slice(0, PAGE_SIZE), next, fromText !== null));
  });
}
