import { connect } from 'node:net';

export interface RawAnswer {
  /** 0 when the server closed the connection without an answer. */
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends one HTTP/1.1 request byte for byte (any request target, repeated or conflicting headers), which a real client
 * refuses to produce, and reads one answer. The connection is closed after it.
 */
export function rawRequest(port: number, head: string, body: Buffer | string = '', timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (answer: RawAnswer | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms to ${head.split('\r\n')[0]}`)), timeoutMs);
    socket.on('error', () => finish(parse(Buffer.concat(chunks))));
    socket.on('close', () => finish(parse(Buffer.concat(chunks))));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const got = parse(Buffer.concat(chunks), true);
      if (got) finish(got);
    });
    socket.write(head.endsWith('\r\n\r\n') ? head : `${head}\r\n\r\n`);
    if (body.length) socket.write(body);
  });
}

function parse(buf: Buffer): RawAnswer;
function parse(buf: Buffer, onlyIfComplete: true): RawAnswer | null;
function parse(buf: Buffer, onlyIfComplete = false): RawAnswer | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return onlyIfComplete ? null : { status: 0, headers: {}, body: '' };
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const rest = buf.subarray(end + 4);
  // A 204 or 304 ends with its head, whatever it declares (RFC 9110, 6.4.1).
  if (status === 204 || status === 304) return { status, headers, body: '' };
  const length = Number(headers['content-length'] ?? NaN);
  if (Number.isFinite(length)) {
    if (rest.length < length) return onlyIfComplete ? null : { status, headers, body: rest.toString('utf8') };
    return { status, headers, body: rest.subarray(0, length).toString('utf8') };
  }
  // Chunked or close-delimited (streams): only complete once the server closes.
  return onlyIfComplete ? null : { status, headers, body: rest.toString('utf8') };
}
