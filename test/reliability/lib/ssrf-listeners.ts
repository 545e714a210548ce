/**
 * Raw TCP tripwires for the SSRF tests: one listener per local address (loopback, IPv6 loopback and
 * every non-internal address of this machine), all on the same port, each recording every connection
 * it accepts. A blocked webhook must leave every one of them untouched; a raw listener sees a
 * connection whether or not TLS or HTTP would follow.
 */
import net from 'node:net';
import os from 'node:os';

export interface Tripwire {
  address: string;
  /** Remote addresses of the connections accepted, in order. */
  connections: string[];
}

export interface Tripwires {
  port: number;
  wires: Tripwire[];
  /** Every connection any listener accepted, as `local <- remote`. */
  seen(): string[];
  close(): Promise<void>;
}

/** The addresses this machine answers on: loopback and every non-internal one (link-local left out: it needs a zone). */
export function localAddresses(): string[] {
  const found = new Set<string>(['127.0.0.1']);
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) {
      if (info.family === 'IPv6' && info.address.toLowerCase().startsWith('fe80:')) continue;
      if (info.internal && info.address !== '::1') continue;
      found.add(info.address);
    }
  }
  return [...found];
}

function listenOn(address: string, port: number, wire: Tripwire): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => {
      wire.connections.push(`${socket.remoteAddress}:${socket.remotePort}`);
      socket.destroy();
    });
    server.once('error', reject);
    server.listen({ host: address, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/**
 * Binds a listener on every address of {@link localAddresses} on one port (tries a few ports until
 * all are free). Addresses that cannot be bound at all (no IPv6 on this machine) are left out;
 * 127.0.0.1 must bind.
 */
export async function startTripwires(): Promise<Tripwires> {
  const addresses = localAddresses();
  for (let tries = 0; tries < 20; tries++) {
    const servers: net.Server[] = [];
    const wires: Tripwire[] = [];
    const first: Tripwire = { address: '127.0.0.1', connections: [] };
    const loopback = await listenOn('127.0.0.1', 0, first);
    servers.push(loopback);
    wires.push(first);
    const port = (loopback.address() as net.AddressInfo).port;
    let clash = false;
    for (const address of addresses.filter((a) => a !== '127.0.0.1')) {
      const wire: Tripwire = { address, connections: [] };
      try {
        servers.push(await listenOn(address, port, wire));
        wires.push(wire);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') {
          clash = true;
          break;
        }
        if (code !== 'EADDRNOTAVAIL' && code !== 'EAFNOSUPPORT') throw error;
      }
    }
    const close = () => Promise.all(servers.map((s) => new Promise<void>((ok) => s.close(() => ok())))).then(() => undefined);
    if (clash) {
      await close();
      continue;
    }
    return {
      port,
      wires,
      seen: () => wires.flatMap((w) => w.connections.map((c) => `${w.address} <- ${c}`)),
      close,
    };
  }
  throw new Error('could not bind one port on every local address');
}
