import { isIPv6 } from 'node:net';
import type { Recognizer } from '../recognizer.js';
import { boundaryAfter, isDigitCode, numericBoundaryBefore } from '../text-boundaries.js';

export const ipv4: Recognizer = {
  entity: 'IP_ADDRESS',
  id: 'ipv4',
  pattern: '\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}',
  validate(text, start, end) {
    if (!numericBoundaryBefore(text, start) || !boundaryAfter(text, end)) return -1;
    // A port (`:8080`), a prefix length (`/24`) or a list comma may follow; `-5` or `.5` may not.
    if (text[end] === '-' && isDigitCode(text.charCodeAt(end + 1))) return -1;
    // `1.2.3.4.5`: a fifth part means a version or an OID, not an address.
    if (text[start - 1] === '.' || (text[end] === '.' && isDigitCode(text.charCodeAt(end + 1)))) return -1;
    for (const part of text.slice(start, end).split('.')) {
      // Leading zeros are octal in some parsers and ambiguous to all: not an address we report.
      if (Number(part) > 255 || (part.length > 1 && part[0] === '0')) return -1;
    }
    return end;
  },
  resumeAfterReject(text, start) {
    // Inside a run of digits and dots every later start follows a digit or a dot: all rejected above.
    let k = start;
    while (k < text.length && (isDigitCode(text.charCodeAt(k)) || text[k] === '.')) k++;
    return Math.max(k, start + 1);
  },
};

function ipv6Adjacent(c: string | undefined): boolean {
  return c !== undefined && /[0-9A-Za-z_:.]/.test(c);
}

/** After an address: nothing address-like, except a sentence's full stop (`… 2001:db8::1.`). */
function ipv6EndsAt(text: string, end: number): boolean {
  const c = text[end];
  if (c === '.') return !ipv6Adjacent(text[end + 1]);
  return !ipv6Adjacent(c);
}

export const ipv6: Recognizer = {
  entity: 'IP_ADDRESS',
  id: 'ipv6',
  // Candidate shape only (hex groups and colons, an optional dotted IPv4 tail); node:net decides.
  pattern: '[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\\.\\d{1,3}){0,3}',
  validate(text, start, end) {
    // `std::vector`, `12:30:45`, MAC addresses: neighbours or shape rule them out.
    if (ipv6Adjacent(text[start - 1]) || !ipv6EndsAt(text, end)) return -1;
    const cand = text.slice(start, end);
    if (!/[0-9A-Fa-f]/.test(cand) || !isIPv6(cand)) return -1;
    return end;
  },
  resumeAfterReject(text, start) {
    let k = start;
    while (k < text.length && ipv6Adjacent(text[k])) k++;
    return Math.max(k, start + 1);
  },
};
