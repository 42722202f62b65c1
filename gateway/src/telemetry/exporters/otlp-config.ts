/** Where OTLP/HTTP goes: the collector's base URL and `OTEL_EXPORTER_OTLP_HEADERS` (`k1=v1,k2=v2`, values URL-encoded). */
export interface OtlpTarget {
  endpoint: string;
  headers: Record<string, string>;
}

export function otlpTarget(endpoint: string, headerList: string): OtlpTarget | null {
  if (endpoint === '') return null;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error(`OTEL_EXPORTER_OTLP_ENDPOINT: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('OTEL_EXPORTER_OTLP_ENDPOINT: http or https');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const pair of headerList.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error('OTEL_EXPORTER_OTLP_HEADERS: expected k1=v1,k2=v2');
    headers[pair.slice(0, at).trim().toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return { endpoint: endpoint.replace(/\/+$/, ''), headers };
}
