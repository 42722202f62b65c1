import { describe, expect, it } from 'vitest';
import { McpOriginCheck, parseAllowedOrigins } from './mcp-origin-check.js';

describe('the MCP origin check', () => {
  it('on a loopback bind: the Host must name loopback (any port); an Origin must be allowed or the same', () => {
    const c = McpOriginCheck.fromSettings('127.0.0.1', 'https://app.example.com');
    for (const host of ['127.0.0.1:8080', '127.0.0.1', '127.1.2.3:1', 'localhost:8080', 'LOCALHOST', '[::1]:8080', '[::1]']) expect(c.refusal('', host), host).toBeNull();
    for (const host of ['evil.example.com', 'evil.example.com:8080', '127.0.0.1.evil.example:80', 'localhost.evil.example', '[::2]:8080', '', '0.0.0.0:8080', '[::1]x']) expect(c.refusal('', host), host).toMatch(/^Host header/);
    expect(c.refusal('https://app.example.com', '127.0.0.1:8080')).toBeNull();
    expect(c.refusal('http://localhost:8080', 'localhost:8080')).toBeNull();
    expect(c.refusal('http://127.0.0.1', '127.0.0.1:80')).toBeNull();
    expect(c.refusal('http://localhost:8081', 'localhost:8080')).toMatch(/^Origin header/);
    expect(c.refusal('https://localhost:8080', 'localhost')).toMatch(/^Origin header/);
    expect(c.refusal('null', '127.0.0.1:8080')).toMatch(/^Origin header/);
    expect(c.refusal('http://localhost:8080/path', 'localhost:8080')).toMatch(/^Origin header/);
  });

  it('elsewhere: any Host; an Origin must still be allowed or name the Host', () => {
    for (const bind of ['0.0.0.0', '::', '10.0.0.5']) {
      const c = McpOriginCheck.fromSettings(bind, '');
      expect(c.refusal('', 'gateway.internal:8080')).toBeNull();
      expect(c.refusal('https://gateway.internal', 'gateway.internal:443')).toBeNull();
      expect(c.refusal('http://gateway.internal:8080', 'Gateway.Internal:8080')).toBeNull();
      expect(c.refusal('https://evil.example.com', 'gateway.internal:8080')).toMatch(/^Origin header/);
      expect(c.refusal('ftp://gateway.internal:8080', 'gateway.internal:8080')).toMatch(/^Origin header/);
    }
  });

  it('MCP_ALLOWED_ORIGINS is kept as browsers send origins', () => {
    expect([...parseAllowedOrigins(' https://App.Example.com:443 , http://localhost:5173/,')]).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(() => parseAllowedOrigins('https://app.example.com/mcp')).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(() => parseAllowedOrigins('*')).toThrow(/MCP_ALLOWED_ORIGINS/);
  });
});
