import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetGuard, type HostLookup } from '@aduana/shared';
import { COLLECT_DEFAULTS } from '../../src/collect/collect-snapshot.js';
import { crawlSite, type CrawlDeps } from '../../src/crawl/index.js';
import { ScannerError } from '../../src/errors.js';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';

/**
 * The static crawl against fixture sites on loopback. `site.test` and its twin `www.site.test` resolve to the
 * fixture; `other.test` resolves there too, so a request for it would show up in the fixture's log with that Host.
 */
let site: FixtureServer;
let closed: FixtureServer;
const guards: NetGuard[] = [];

const html = (title: string, body: string, head = ''): string =>
  `<!doctype html><html><head><title>${title}</title>${head}</head><body>${body}</body></html>`;
const link = (path: string): string => `<a href="${path}">${path}</a>`;

function deps(overrides: Partial<CrawlDeps> = {}): CrawlDeps {
  const lookup: HostLookup = async (name) => {
    if (['site.test', 'www.site.test', 'other.test'].includes(name)) return [{ address: '127.0.0.1', family: 4 }];
    throw new Error(`no such host ${name}`);
  };
  const guard = new NetGuard({ allowPrivate: ['127.0.0.1/32'], lookup });
  guards.push(guard);
  return {
    guard,
    userAgent: COLLECT_DEFAULTS.userAgent,
    fetchTimeoutMs: 5_000,
    maxBodyBytes: 1024 * 1024,
    maxLinkChecks: 50,
    maxLinksPerPage: 1_000,
    robots: { robotsMaxRules: 2_000, robotsMaxRuleLength: 1_024 },
    ...overrides,
  };
}

function pageRequests(path: RegExp, method = 'GET'): string[] {
  return site.requests.filter((r) => r.method === method && path.test(r.path)).map((r) => r.path);
}

beforeAll(async () => {
  site = await startFixture((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const host = (req.headers.host ?? '').split(':')[0];
    const send = (body: string, status = 200, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
    };
    if (path === '/robots.txt') {
      if (host === 'www.site.test') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /twin-secret\n');
      return void res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end('User-agent: *\nDisallow: /private\n\nUser-agent: aduana-scanner\nDisallow: /private\nDisallow: /members\n');
    }
    // A chain of 15 pages: /chain/0 links /chain/1 and so on.
    const chain = /^\/chain\/(\d+)$/.exec(path);
    if (chain) {
      const n = Number(chain[1]);
      return void send(html(`Chain ${String(n)}`, `<h1>Page ${String(n)}</h1>${n < 15 ? link(`/chain/${String(n + 1)}`) : ''}`));
    }
    switch (path) {
      case '/':
        return void send(
          html(
            'Início — Loja',
            `<h1>Bem-vindo</h1><p>Três palavras aqui.</p>${link('/private/a')}${link('/members')}${link('/old')}${link('/missing')}${link('/about')}` +
              `<a href="http://www.site.test:${String(site.port)}/twin">twin</a><a href="http://other.test:${String(site.port)}/elsewhere">off-site</a>` +
              `<a href="mailto:x@y.z">mail</a><a href="/about#team">about again</a>`,
            '<meta name="description" content="Loja de teste">',
          ),
        );
      case '/old':
        return void res.writeHead(301, { location: '/new-home' }).end();
      case '/missing':
        return void send('gone', 404);
      case '/about':
        return void send(html('Início — Loja', '<h1>Sobre</h1>', '<meta name="description" content="Loja de teste"><link rel="canonical" href="/old">'));
      case '/twin':
        return void send(html('Twin', `<h1>Twin</h1>${link('/twin-secret')}`, '<meta name="robots" content="noindex"><link rel="canonical" href="/">'));
      case '/many': {
        const links = Array.from({ length: 80 }, (_, i) => link(`/leaf/${String(i)}`)).join('');
        return void send(html('Many', links));
      }
      case '/conflicts':
        return void send(
          html('Conflicts', `${link('/a')}`, '<link rel="canonical" href="/a"><link rel="canonical" href="/b">'),
        );
      case '/a':
        return void send(html('A', 'a', '<link rel="canonical" href="/b">'));
      case '/cross':
        return void send(html('Cross', 'x', '<link rel="canonical" href="https://elsewhere.example/">'));
      default:
        if (path.startsWith('/leaf/')) return void send(Number(path.slice(6)) % 10 === 0 ? 'no' : 'ok', Number(path.slice(6)) % 10 === 0 ? 404 : 200);
        return void send('not found', 404);
    }
  });
  closed = await startFixture((_req, res) => res.end());
  await closed.close();
});

afterAll(async () => {
  await site.close();
  await Promise.all(guards.map((g) => g.close()));
});

const origin = (host = 'site.test'): string => `http://${host}:${String(site.port)}`;

describe('crawl limits', () => {
  it('visits at most maxPages pages, one after the other', async () => {
    const before = pageRequests(/^\/chain\//).length;
    const result = await crawlSite(`${origin()}/chain/0`, { maxPages: 3 }, deps({ maxLinkChecks: 0 }));
    expect(result.pages.map((p) => new URL(p.url).pathname)).toEqual(['/chain/0', '/chain/1', '/chain/2']);
    expect(pageRequests(/^\/chain\//).length - before).toBe(3);
  });

  it('never visits more than ten pages, whatever maxPages says', async () => {
    const result = await crawlSite(`${origin()}/chain/0`, { maxPages: 50 }, deps({ maxLinkChecks: 0 }));
    expect(result.maxPages).toBe(10);
    expect(result.pages).toHaveLength(10);
  });

  it('checks at most maxLinkChecks unvisited links, with HEAD, and reports the broken ones', async () => {
    const headsBefore = pageRequests(/^\/leaf\//, 'HEAD').length;
    const result = await crawlSite(`${origin()}/many`, { maxPages: 1 }, deps());
    expect(result.pages).toHaveLength(1);
    expect(result.linksChecked).toBe(50);
    expect(pageRequests(/^\/leaf\//, 'HEAD').length - headsBefore).toBe(50);
    expect(pageRequests(/^\/leaf\//, 'GET')).toEqual([]);
    // Leaves 0, 10, 20, 30, 40 answer 404 among the first 50 checked.
    expect(result.brokenLinks.map((b) => new URL(b.url).pathname)).toEqual(['/leaf/0', '/leaf/10', '/leaf/20', '/leaf/30', '/leaf/40']);
    expect(result.brokenLinks[0]).toMatchObject({ status: 404, linkedFrom: [`${origin()}/many`] });
  });
});

describe('a crawl of the fixture shop', () => {
  it('reads each page, obeys robots.txt, records redirects without following them and finds broken links', async () => {
    const result = await crawlSite(`${origin()}/`, { maxPages: 10 }, deps());
    const byPath = new Map(result.pages.map((p) => [new URL(p.url).host + new URL(p.url).pathname, p]));
    const host = `site.test:${String(site.port)}`;

    const home = byPath.get(`${host}/`);
    expect(home).toMatchObject({ status: 200, title: 'Início — Loja', metaDescription: 'Loja de teste', h1: ['Bem-vindo'], noindex: false, canonical: null });
    expect(home?.wordCount).toBeGreaterThanOrEqual(4);
    // /private/a, /members, /old, /missing, /about, the twin's /twin (other.test, mailto and the #team repeat are not).
    expect(home?.internalLinks).toBe(6);

    // robots.txt: the scanner's own group disallows /private and /members; neither is ever requested.
    expect(result.disallowedByRobots.map((u) => new URL(u).pathname).sort()).toEqual(['/members', '/private/a', '/twin-secret']);
    expect(site.requests.some((r) => r.path.startsWith('/private') || r.path === '/members' || r.path === '/twin-secret')).toBe(false);

    // The redirect is recorded with its location; its target is never requested.
    expect(byPath.get(`${host}/old`)).toMatchObject({ status: 301, redirectLocation: `${origin()}/new-home` });
    expect(site.requests.some((r) => r.path === '/new-home')).toBe(false);

    // The www twin is part of the site; other.test is not, and was never asked for anything.
    expect(byPath.get(`www.site.test:${String(site.port)}/twin`)).toMatchObject({ status: 200, noindex: true });
    expect(site.requests.some((r) => (r.headers.host ?? '').startsWith('other.test'))).toBe(false);

    expect(result.brokenLinks).toEqual([{ url: `${origin()}/missing`, status: 404, linkedFrom: [`${origin()}/`] }]);
    expect(result.duplicateTitles).toEqual([{ value: 'Início — Loja', urls: [`${origin()}/`, `${origin()}/about`] }]);
    expect(result.duplicateDescriptions).toEqual([{ value: 'Loja de teste', urls: [`${origin()}/`, `${origin()}/about`] }]);
    // /about's canonical answered 301; the noindex twin names the home page as canonical.
    expect(result.canonicalConflicts.map((c) => [new URL(c.url).pathname, c.kind])).toEqual([
      ['/about', 'target_not_ok'],
      ['/twin', 'noindex'],
    ]);
  });

  it('reports several canonicals, a canonical chain and a cross-site canonical', async () => {
    const conflicts = await crawlSite(`${origin()}/conflicts`, { maxPages: 2 }, deps());
    expect(conflicts.canonicalConflicts.map((c) => [new URL(c.url).pathname, c.kind])).toEqual([
      ['/conflicts', 'multiple'],
      ['/conflicts', 'chain'],
    ]);
    const cross = await crawlSite(`${origin()}/cross`, { maxPages: 1 }, deps());
    expect(cross.canonicalConflicts).toMatchObject([{ kind: 'cross_site', canonical: 'https://elsewhere.example/' }]);
  });
});

describe('a start URL that cannot be crawled', () => {
  it('is unreachable (the route answers 502) when nothing listens', async () => {
    const error = await crawlSite(`http://127.0.0.1:${String(closed.port)}/`, { maxPages: 5 }, deps()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScannerError);
    expect(error).toMatchObject({ code: 'target_unreachable', status: 502 });
  });

  it('is refused by the address guard when loopback is not allowed, and nothing is requested', async () => {
    const before = site.requests.length;
    const guard = new NetGuard({ lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    guards.push(guard);
    const error = await crawlSite(`${origin()}/`, { maxPages: 5 }, deps({ guard })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'blocked_destination', status: 400 });
    expect(site.requests.length).toBe(before);
  });
});
