import { TextDecoder } from 'node:util';

/** Media types whose body the snapshot keeps as text (everything else is counted, not decoded). */
export function isTextual(mediaType: string): boolean {
  if (mediaType === '' || mediaType.startsWith('text/')) return true; // robots.txt and friends are often served untyped
  if (mediaType.endsWith('+json') || mediaType.endsWith('+xml')) return true;
  return TEXTUAL_APPLICATION.has(mediaType);
}

const TEXTUAL_APPLICATION = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/yaml',
  'application/x-yaml',
  'application/linkset',
]);

/** Lower-case media type without parameters ('' when absent). */
export function mediaTypeOf(contentType: string): string {
  return (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
}

/**
 * Decodes by the Content-Type charset; for HTML without one, by a `<meta charset>` in the first 1,024 bytes (the
 * HTML prescan's window); else a BOM; else UTF-8. An unknown label falls back to UTF-8 rather than failing the probe.
 */
export function decodeText(bytes: Buffer, contentType: string): string {
  const label = charsetParam(contentType) ?? (mediaTypeOf(contentType) === 'text/html' ? metaCharset(bytes) : undefined) ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label); // honours (and strips) a BOM that agrees; full ICU knows the legacy labels
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(bytes);
}

function charsetParam(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match?.[1]?.toLowerCase();
}

function metaCharset(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 1024).toString('latin1');
  const match = /<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_:.-]+)/i.exec(head);
  return match?.[1]?.toLowerCase();
}
