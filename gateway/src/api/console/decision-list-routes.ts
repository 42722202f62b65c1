import type { HttpServer, Reply } from '../../http/server.js';
import type { PolicyRepository } from '../../storage/repositories.js';
import { PAGE, htmlReply } from './console-route-kit.js';
import type { ConsoleData } from './console-data.js';
import { viewerOf } from './console-session.js';
import { parseDecisionsQuery } from './decision-query.js';
import { decisionsCsv } from './decisions-csv.js';
import { decisionsPage } from './pages/decisions-page.js';


/**
 * The decisions list and its CSV (docs/console.md, "Working the lists"): the same filters, the same paging; the CSV
 * walks the pages up to CONSOLE_CSV_MAX_ROWS.
 */
export function registerDecisionListRoutes(server: HttpServer, data: ConsoleData, policies: Pick<PolicyRepository, 'all'>, csvMaxRows: number): void {
  const parse = (tenantId: string, query: URLSearchParams) =>
    parseDecisionsQuery(query, Date.now(), (name) =>
      policies
        .all(tenantId)
        .filter((p) => p.name === name)
        .map((p) => p.id),
    );

  server.route('get', '/console/decisions', PAGE, async (ctx): Promise<Reply> => {
    const v = viewerOf(ctx);
    const q = parse(v.principal.tenantId, ctx.query);
    const result = await data.decisions(v.principal.tenantId, q.filter);
    const resolved = ctx.query.get('resolved');
    const notice = resolved ? `Decision ${resolved.slice(0, 64)} resolved.` : '';
    const names = new Map(policies.all(v.principal.tenantId).map((p) => [p.id, p.name]));
    return htmlReply(200, decisionsPage(v, result, q.shown, q.tzo, q.filter.before !== null, notice, names));
  });

  server.route('get', '/console/decisions.csv', PAGE, async (ctx): Promise<Reply> => {
    const tenantId = viewerOf(ctx).principal.tenantId;
    const q = parse(tenantId, ctx.query);
    const csv = await decisionsCsv((f) => data.decisions(tenantId, f), q.filter, csvMaxRows);
    const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '');
    return {
      status: 200,
      raw: Buffer.concat(csv.chunks),
      contentType: 'text/csv; charset=utf-8',
      headers: {
        'content-disposition': `attachment; filename="decisions-${stamp}Z.csv"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-aduana-truncated': String(csv.truncated),
        'x-aduana-rows': String(csv.rows),
      },
    };
  });
}
