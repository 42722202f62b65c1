import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A real RFC 3161 time-stamp authority on loopback: a throwaway CA and a TSA certificate (extendedKeyUsage
 * timeStamping, critical) made with `openssl req`/`openssl x509` in a temp dir, and an HTTP endpoint that pipes each
 * request through `openssl ts -reply`. `down` makes it answer 503, as a TSA that is away would.
 */
export class LocalTsa {
  readonly dir: string;
  /** Every request body received (DER TimeStampReq), in order, answered or not. */
  readonly requests: Buffer[] = [];
  down = false;
  url = '';
  #server: Server | null = null;
  #serial: Promise<unknown> = Promise.resolve();

  private constructor(dir: string) {
    this.dir = dir;
  }

  /** The TSA's certificate (PEM). */
  get certPem(): string {
    return readFileSync(join(this.dir, 'tsa.pem'), 'utf8');
  }

  /** The CA's certificate (PEM), which issued the TSA's. */
  get caPem(): string {
    return readFileSync(join(this.dir, 'ca.pem'), 'utf8');
  }

  get certPath(): string {
    return join(this.dir, 'tsa.pem');
  }

  static async start(): Promise<LocalTsa> {
    const tsa = new LocalTsa(mkdtempSync(join(tmpdir(), 'aduana-tsa-')));
    const d = tsa.dir;
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(d, 'ca.key'), '-out', join(d, 'ca.pem'), '-subj', '/CN=aduana test TSA CA', '-days', '2', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign']);
    await run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(d, 'tsa.key'), '-out', join(d, 'tsa.csr'), '-subj', '/CN=aduana test TSA']);
    writeFileSync(join(d, 'ext.cnf'), 'extendedKeyUsage=critical,timeStamping\nkeyUsage=critical,digitalSignature\nbasicConstraints=CA:FALSE\n');
    await run('openssl', ['x509', '-req', '-in', join(d, 'tsa.csr'), '-CA', join(d, 'ca.pem'), '-CAkey', join(d, 'ca.key'), '-set_serial', '0x5A17', '-days', '2', '-out', join(d, 'tsa.pem'), '-extfile', join(d, 'ext.cnf')]);
    writeFileSync(join(d, 'serial'), '01\n');
    writeFileSync(
      join(d, 'tsa.cnf'),
      [
        '[ tsa ]',
        'default_tsa = tsa1',
        '[ tsa1 ]',
        `serial = ${join(d, 'serial')}`,
        'crypto_device = builtin',
        `signer_cert = ${join(d, 'tsa.pem')}`,
        `certs = ${join(d, 'ca.pem')}`,
        `signer_key = ${join(d, 'tsa.key')}`,
        'signer_digest = sha256',
        'default_policy = 1.2.3.4.1',
        'other_policies = 1.2.3.4.5',
        'digests = sha256, sha384, sha512',
        'accuracy = secs:1',
        'ordering = no',
        'tsa_name = yes',
        'ess_cert_id_chain = no',
        'ess_cert_id_alg = sha256',
        '',
      ].join('\n'),
    );
    tsa.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        tsa.requests.push(body);
        if (tsa.down) {
          res.writeHead(503).end();
          return;
        }
        // openssl ts keeps its serial number in a file: one reply at a time.
        const reply = tsa.#serial.then(() => tsa.#reply(body));
        tsa.#serial = reply.catch(() => {});
        reply.then(
          (der) => res.writeHead(200, { 'content-type': 'application/timestamp-reply', 'content-length': der.length }).end(der),
          () => res.writeHead(500).end(),
        );
      });
    });
    await new Promise<void>((r) => tsa.#server!.listen(0, '127.0.0.1', r));
    tsa.url = `http://127.0.0.1:${(tsa.#server.address() as AddressInfo).port}/tsa`;
    return tsa;
  }

  /** True when some request asked to time-stamp this SHA-256 digest. */
  sawImprint(digest: Buffer): boolean {
    return this.requests.some((r) => r.includes(digest));
  }

  async #reply(query: Buffer): Promise<Buffer> {
    const n = this.requests.length;
    const q = join(this.dir, `q${n}.der`);
    const r = join(this.dir, `r${n}.der`);
    writeFileSync(q, query);
    await run('openssl', ['ts', '-reply', '-config', join(this.dir, 'tsa.cnf'), '-queryfile', q, '-out', r]);
    return readFileSync(r);
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((r) => this.#server?.close(r));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
