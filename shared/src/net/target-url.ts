import { NetGuardError } from './net-guard-error.js';

/**
 * Parses a destination with the WHATWG URL parser, the same one undici uses, so what we check is what gets
 * connected to: it already turns `2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1` and fullwidth digits into
 * `127.0.0.1`. Only http: and https:, any port, no user name or password (the scanner never authenticates and a
 * credential in a URL would end up in logs).
 */
export function parseTargetUrl(input: string | URL): URL {
  const text = typeof input === 'string' ? input : input.href;
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    throw new NetGuardError('invalid_url', 'not an absolute URL', redact(text), { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NetGuardError('invalid_url', `scheme ${url.protocol} is not allowed (http: and https: only)`, redact(text));
  }
  if (url.username !== '' || url.password !== '') {
    throw new NetGuardError('invalid_url', 'credentials in the URL are not allowed', `${url.protocol}//${url.host}`);
  }
  if (url.hostname === '') throw new NetGuardError('invalid_url', 'the URL has no host', url.href);
  return url;
}

/** The host name without IPv6 brackets, as `net.isIP` and DNS expect it. */
export function bareHostname(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

// Keep error targets short and free of anything after an '@' (a refused URL may still carry a secret).
function redact(text: string): string {
  const cut = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return cut.replace(/\/\/[^/@]*@/, '//***@');
}
