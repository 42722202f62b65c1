import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpRelay {
  url: string;
  port: number;
  /** Stops listening and cuts every connection: the service behind it is unreachable. */
  close(): Promise<void>;
}

/**
 * A loopback TCP relay in front of a server, so a test can take the service off the network and bring it back on
 * the same address (Node listens with SO_REUSEADDR, so the port can be taken again at once).
 */
export async function startTcpRelay(targetPort: number, port = 0): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  const bound = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
