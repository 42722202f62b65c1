import { describe, expect, it } from 'vitest';
import { GOOD_HEADERS, GOOD_HTML } from './fixtures/pages.js';
import { apiSnapshot, goodSnapshot, page, probe } from './fixtures/snapshots.js';
import { runOne } from './run-one.js';

describe('agentReadiness checks', () => {
  it('robots.txt AI rules: naming an AI agent passes, only "*" fails', () => {
    expect(runOne('agentReadiness.robots-ai-rules', goodSnapshot()).evidence).toContain('GPTBot');
    expect(runOne('agentReadiness.robots-ai-rules', goodSnapshot({ robotsTxt: probe('/robots.txt', 200, 'User-agent: *\nAllow: /\n') })).status).toBe('fail');
  });

  it('content signals: Content-Signal in robots.txt or a Content-Usage header', () => {
    expect(runOne('agentReadiness.content-signals', goodSnapshot()).evidence).toContain('Content-Signal: search=yes, ai-input=yes, ai-train=no');
    const header = goodSnapshot({ robotsTxt: probe('/robots.txt', 404), page: page(GOOD_HTML, { ...GOOD_HEADERS, 'content-usage': 'train-ai=n' }) });
    expect(runOne('agentReadiness.content-signals', header).status).toBe('pass');
    expect(runOne('agentReadiness.content-signals', goodSnapshot({ robotsTxt: probe('/robots.txt', 404) })).status).toBe('fail');
  });

  it('Link headers: a useful rel passes, none fails', () => {
    expect(runOne('agentReadiness.link-headers', goodSnapshot()).status).toBe('pass');
    const headers = { ...GOOD_HEADERS };
    delete headers['link'];
    expect(runOne('agentReadiness.link-headers', goodSnapshot({ page: page(GOOD_HTML, headers) })).finding?.evidence).toBe('No Link response header.');
  });

  it('markdown negotiation: text/markdown answer passes; HTML fails', () => {
    expect(runOne('agentReadiness.markdown-negotiation', goodSnapshot()).status).toBe('pass');
    expect(runOne('agentReadiness.markdown-negotiation', goodSnapshot({ markdownNegotiation: probe('/', 200, '<html></html>', 'text/html') })).finding?.evidence).toContain('text/html');
  });

  it('llms.txt validity: needs an H1, a link and real content; absent is not applicable', () => {
    expect(runOne('agentReadiness.llms-txt-valid', goodSnapshot()).status).toBe('pass');
    const r = runOne('agentReadiness.llms-txt-valid', goodSnapshot({ llmsTxt: probe('/llms.txt', 200, 'hello agents') }));
    expect(r.finding?.evidence).toContain('no "# Title" H1 line; no Markdown links; only 12 characters');
    expect(runOne('agentReadiness.llms-txt-valid', goodSnapshot({ llmsTxt: probe('/llms.txt', 404) })).status).toBe('not_applicable');
  });

  it('API-only signals are Informational and unscored on a content site, scored on an api', () => {
    for (const id of ['agentReadiness.api-catalog', 'agentReadiness.oauth-discovery', 'agentReadiness.mcp-server-card', 'agentReadiness.agent-card', 'agentReadiness.openapi-discovery']) {
      const content = runOne(id, goodSnapshot(), 'content');
      expect([content.status, content.score, content.finding?.severity]).toEqual(['info', null, 'Informational']);
      expect(runOne(id, goodSnapshot(), 'api').status).toBe('fail');
    }
  });

  it('API discovery documents pass when valid (RFC 9727, RFC 9728, A2A, MCP, OpenAPI)', () => {
    const snap = apiSnapshot();
    const ok = {
      ...snap,
      apiCatalog: probe('/.well-known/api-catalog', 200, JSON.stringify({ linkset: [{ anchor: 'https://cafe.example/api' }] }), 'application/linkset+json'),
      oauthProtectedResource: probe('/.well-known/oauth-protected-resource', 200, JSON.stringify({ resource: 'https://cafe.example/api', authorization_servers: ['https://auth.example'] }), 'application/json'),
      agentCard: probe('/.well-known/agent-card.json', 200, JSON.stringify({ name: 'Café agent', url: 'https://cafe.example/a2a', skills: [] }), 'application/json'),
      mcpServerCard: probe('/.well-known/mcp.json', 200, JSON.stringify({ name: 'cafe-mcp', endpoint: 'https://cafe.example/mcp' }), 'application/json'),
    };
    for (const id of ['agentReadiness.api-catalog', 'agentReadiness.oauth-discovery', 'agentReadiness.mcp-server-card', 'agentReadiness.agent-card', 'agentReadiness.openapi-discovery']) {
      expect(runOne(id, ok, 'api').status, id).toBe('pass');
    }
    expect(runOne('agentReadiness.openapi-discovery', ok, 'api').evidence).toContain('OpenAPI 3.1.0, 1 path(s)');
  });

  it('content without JavaScript: an empty SPA shell is High', () => {
    const r = runOne('agentReadiness.content-without-js', goodSnapshot({ page: page('<html><body><div id="root"></div><script src="/app.js"></script></body></html>', GOOD_HEADERS) }));
    expect(r.finding?.severity).toBe('High');
    expect(r.finding?.evidence).toContain('Only 0 characters');
  });

  it('labelled controls and stable canonical', () => {
    expect(runOne('agentReadiness.labelled-controls', goodSnapshot()).status).toBe('pass');
    const tracking = goodSnapshot({ page: page(GOOD_HTML.replace('href="https://cafe.example/">', 'href="https://cafe.example/?utm_source=x">'), GOOD_HEADERS) });
    expect(runOne('agentReadiness.stable-canonical', tracking).finding?.evidence).toContain('utm_source=x');
  });
});
