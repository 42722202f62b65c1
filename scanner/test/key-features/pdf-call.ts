import type { KeyedScanner } from '../helpers/keyed-scanner.js';

/** A KEY POST whose success is a PDF: the bytes as sent, or the JSON error body. */
export async function postForPdf(sc: KeyedScanner, path: string, body: unknown, key: string | null = sc.bootstrapKey): Promise<{ status: number; headers: Headers; pdf: Buffer; json: unknown }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${sc.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const bytes = Buffer.from(await res.arrayBuffer());
  const isPdf = (res.headers.get('content-type') ?? '').startsWith('application/pdf');
  return { status: res.status, headers: res.headers, pdf: isPdf ? bytes : Buffer.alloc(0), json: isPdf || bytes.length === 0 ? undefined : (JSON.parse(bytes.toString()) as unknown) };
}
