import type { Snapshot } from '@aduana/scanner';

/**
 * The benchmark's ~200 KB snapshot, built deterministically so every run judges the same bytes: a shop-like home
 * page (navigation, product cards with images, forms, JSON-LD, inline scripts) padded to size with repeated cards,
 * plus the site's resources, the way the collectors would store them.
 */
function card(i: number): string {
  return `<article class="card" id="p${i}">
  <a href="/produtos/cafe-${i}"><img src="/img/cafe-${i}.webp" alt="Pacote do café lote ${i}" width="320" height="320" loading="lazy"></a>
  <h3><a href="/produtos/cafe-${i}">Café especial lote ${i}</a></h3>
  <p class="notes">Notas de chocolate, caramelo e frutas amarelas. Torra média, processo natural, safra 2026, fazenda ${i % 17}.</p>
  <p class="price">R$ ${(39 + (i % 40)).toFixed(2).replace('.', ',')}</p>
  <form action="/carrinho" method="post"><input type="hidden" name="sku" value="${i}"><label for="q${i}">Quantidade</label><input id="q${i}" name="q" type="number" value="1"><button type="submit">Adicionar ao carrinho</button></form>
</article>`;
}

export function benchPage(targetBytes = 200 * 1024): string {
  const head = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Aduana Café: cafés especiais torrados na semana</title><meta name="description" content="Cafés especiais torrados na semana, com entrega em todo o Brasil.">
<link rel="canonical" href="https://cafe.example/"><meta property="og:title" content="Aduana Café"><meta property="og:type" content="website"><meta property="og:image" content="https://cafe.example/og.png"><meta property="og:url" content="https://cafe.example/">
<link rel="stylesheet" href="/css/main.css"><script src="/js/app.js" defer></script><script async src="https://www.googletagmanager.com/gtag/js?id=G-BENCH"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());gtag('config','G-BENCH');</script>
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"Aduana Café","url":"https://cafe.example/"},{"@type":"WebSite","name":"Aduana Café","url":"https://cafe.example/"},{"@type":"Product","name":"Café especial lote 1","offers":{"@type":"Offer","price":"39.00","priceCurrency":"BRL"}}]}</script>
</head><body><header><nav>${Array.from({ length: 30 }, (_, i) => `<a href="/categoria/${i}">Categoria ${i}</a>`).join(' ')}</nav>
<form role="search" action="/busca"><label for="s">Buscar</label><input id="s" name="q" type="search"><button>Buscar</button></form></header>
<main><h1>Cafés especiais torrados na semana</h1><section><h2>Lotes da semana</h2>`;
  const tail = `</section></main><footer><a href="/privacidade">Política de privacidade</a> <a href="/termos">Termos</a></footer></body></html>`;
  const cards: string[] = [];
  let size = head.length + tail.length;
  for (let i = 1; size < targetBytes; i++) {
    const c = card(i);
    cards.push(c);
    size += c.length;
  }
  return head + cards.join('\n') + tail;
}

const ORIGIN = 'https://cafe.example';

function probe(path: string, status: number, body: string, contentType: string): Snapshot['robotsTxt'] & object {
  const bytes = Buffer.byteLength(body);
  return { url: `${ORIGIN}${path}`, status, headers: { 'content-type': contentType }, setCookies: [], contentType, body, truncated: false, wireBytes: bytes, bodyBytes: bytes };
}

export function benchSnapshot(): Snapshot {
  const html = benchPage();
  const bytes = Buffer.byteLength(html);
  const notFound = (path: string) => probe(path, 404, 'Not found', 'text/plain');
  return {
    requestedUrl: `${ORIGIN}/`,
    collectedAt: '2026-11-22T08:00:00.000Z',
    page: {
      url: `${ORIGIN}/`,
      status: 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'strict-transport-security': 'max-age=63072000; includeSubDomains',
        'content-security-policy': "default-src 'self'; script-src 'self' https://www.googletagmanager.com 'unsafe-inline'; frame-ancestors 'self'",
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'strict-origin-when-cross-origin',
        'cache-control': 'no-cache',
        etag: '"bench"',
        server: 'nginx',
      },
      setCookies: ['session=abc; Path=/; Secure; HttpOnly; SameSite=Lax', 'ab_test=b; Path=/; Secure'],
      contentType: 'text/html',
      body: html,
      truncated: false,
      wireBytes: Math.round(bytes / 6),
      bodyBytes: bytes,
      finalUrl: `${ORIGIN}/`,
      redirectChain: [`${ORIGIN}/`],
      ttfbMs: 180,
      totalMs: 240,
      contentEncoding: 'br',
    },
    robotsTxt: probe('/robots.txt', 200, 'User-agent: *\nAllow: /\nDisallow: /carrinho\n\nUser-agent: GPTBot\nDisallow: /\n\nSitemap: https://cafe.example/sitemap.xml\n', 'text/plain'),
    sitemapXml: probe('/sitemap.xml', 200, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${'<url><loc>https://cafe.example/p</loc></url>'.repeat(200)}</urlset>`, 'application/xml'),
    securityTxt: probe('/.well-known/security.txt', 200, 'Contact: mailto:security@cafe.example\nExpires: 2099-01-01T00:00:00Z\n', 'text/plain'),
    llmsTxt: probe('/llms.txt', 200, '# Aduana Café\n\n> Cafés especiais.\n\n- [Cafés](https://cafe.example/cafes): lotes\n', 'text/markdown'),
    apiCatalog: notFound('/.well-known/api-catalog'),
    oauthAuthorizationServer: notFound('/.well-known/oauth-authorization-server'),
    oauthProtectedResource: notFound('/.well-known/oauth-protected-resource'),
    mcpServerCard: notFound('/.well-known/mcp.json'),
    agentCard: notFound('/.well-known/agent-card.json'),
    openapi: notFound('/openapi.json'),
    markdownNegotiation: probe('/', 200, html, 'text/html'),
    tls: { authorized: true, protocol: 'TLSv1.3', subject: 'CN=cafe.example', issuer: 'CN=R11', subjectAltNames: ['DNS:cafe.example'], validFrom: '2026-10-01T00:00:00Z', validTo: '2026-12-30T00:00:00Z', daysRemaining: 38 },
    httpsRedirect: { url: 'http://cafe.example/', redirectsToHttps: true, status: 301, location: `${ORIGIN}/` },
  };
}
