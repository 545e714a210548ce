import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UserError } from '../errors.js';
import type { RequestHandler } from './app.js';
import { answerClientError } from './http/client-error.js';
import { type PortHolder, svcEmulatorOn } from './port-holder.js';

/** An HTTP server for the emulator's handler, with the timeouts its body reader expects. */
export function createHttpServer(handler: RequestHandler): Server {
  const server = createServer({ keepAlive: true }, handler);
  server.on('clientError', answerClientError);
  // The body reader answers slow senders with a contract-shaped 408 after 10 s; Node's own
  // timeout (which would drop them without a body) must come later.
  server.requestTimeout = 30_000;
  server.headersTimeout = 20_000;
  server.keepAliveTimeout = 5_000;
  return server;
}

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      // A port in use: said of which svc emulator holds it, when one does (a forgotten `svc dev`).
      if (error.code === 'EADDRINUSE') void svcEmulatorOn(host, port).then((holder) => reject(listenError(error, port, host, holder)));
      else reject(listenError(error, port, host));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error(`listening on ${host}:${port} gave no TCP address`));
      else resolve(address);
    });
  });
}

/** Why the emulator cannot listen, in one line a person can act on (exit 1, no stack trace). */
function listenError(error: NodeJS.ErrnoException, port: number, host: string, holder: PortHolder | null = null): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      if (holder) {
        const which = [holder.pid === undefined ? '' : `pid ${holder.pid}`, holder.baseUrl ?? '', holder.folder ? `folder ${holder.folder}` : ''].filter(
          Boolean,
        );
        return new UserError(
          `port ${port} is already in use on ${host} by another svc emulator${which.length ? ` (${which.join(', ')})` : ''}; stop it, or start with --port 0 to pick a free port`,
          'port_in_use',
        );
      }
      return new UserError(`port ${port} is already in use on ${host}; stop what uses it, or start with --port 0 to pick a free port`, 'port_in_use');
    case 'EACCES':
      return new UserError(`port ${port} on ${host} needs privileges to listen on; use a port above 1023, or --port 0 to pick a free one`, 'port_forbidden');
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new UserError(`cannot listen on ${host}: it is not an address of this machine (check --host)`, 'host_unavailable');
    default:
      return error;
  }
}

export function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export function close(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Requests still running after 2 s are cut: a stop must not hang on a slow client.
    setTimeout(() => server.closeAllConnections(), 2000).unref();
  });
}
