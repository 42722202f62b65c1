import { createPublicKey, verify } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import type { Page } from 'playwright-core';

// An independent verifier: RFC 9162 inclusion and a checkpoint's Ed25519 signature, without the product's code.

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));
const node = (left: Uint8Array, right: Uint8Array): Uint8Array<ArrayBuffer> => sha256(Uint8Array.from([0x01, ...left, ...right]));

/** RFC 9162 §2.1.3.2: the root the audit path leads to from leaf `index` of a tree of `size`, or null if the path does not fit. */
export function rootFromPath(entryHash: string, index: number, size: number, path: string[]): string | null {
  if (index >= size) return null;
  let fn = index;
  let sn = size - 1;
  let r: Uint8Array<ArrayBuffer> = sha256(Uint8Array.from([0x00, ...bytes(entryHash)]));
  for (const p of path) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = node(bytes(p), r);
      while (fn % 2 === 0 && fn !== 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else r = node(r, bytes(p));
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 ? hex(r) : null;
}

/** Ed25519 over the RFC 8785 JSON of the checkpoint's fields (all strings and integers: sorted keys, no spaces). */
export function checkpointSignatureValid(cp: { tenant_id: string; tree_size: number; root_hash: string; timestamp: string; key_id: string; signature: string }, rawKeyB64: string): boolean {
  const signed = JSON.stringify({ key_id: cp.key_id, root_hash: cp.root_hash, tenant_id: cp.tenant_id, timestamp: cp.timestamp, tree_size: cp.tree_size });
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(rawKeyB64, 'base64')]);
  return verify(null, Buffer.from(signed), createPublicKey({ key: spki, format: 'der', type: 'spki' }), Buffer.from(cp.signature, 'base64'));
}

/** The text of an element of a console page, trimmed ('' when absent). */
async function shownText(page: Page, selector: string): Promise<string> {
  return ((await page.textContent(selector)) ?? '').trim();
}

/** The signed checkpoint a console page shows (the decision page's and the ledger entry page's ledger section). */
export async function shownCheckpoint(page: Page, tenantId: string): Promise<{ tenant_id: string; tree_size: number; root_hash: string; timestamp: string; key_id: string; signature: string }> {
  return {
    tenant_id: tenantId,
    tree_size: Number(await shownText(page, '#checkpoint-size')),
    root_hash: await shownText(page, '#checkpoint-root'),
    timestamp: await shownText(page, '#checkpoint-timestamp'),
    key_id: await shownText(page, '#checkpoint-key'),
    signature: await shownText(page, '#checkpoint-signature'),
  };
}
