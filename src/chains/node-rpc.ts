import http from 'node:http';

/** A JSON-RPC error a node answered with. */
export class NodeRpcError extends Error {
  constructor(
    readonly method: string,
    readonly rpcCode: number | undefined,
    message: string,
  ) {
    super(`${method}: ${message}`);
  }
}

/** The node could not be reached, or answered something that is not JSON-RPC. */
export class NodeUnreachable extends Error {}

/** An answer as the node sent it: what the proxy passes on. */
export interface RawAnswer {
  status: number;
  text: string;
}

const TIMEOUT_MS = 30_000;

/**
 * JSON-RPC over HTTP to one local node, on kept-alive loopback connections: svc's own calls (the
 * genesis writes, mining, state dumps) and the bytes the proxy forwards (CONTRACT §14 `rpcUrl`).
 */
export class NodeRpc {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  private id = 0;

  constructor(readonly url: string) {}

  /** One call; its `result`, or a NodeRpcError with the node's message. */
  async call(method: string, params: unknown[] = []): Promise<unknown> {
    const answer = await this.forward(JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }));
    let reply: unknown;
    try {
      reply = JSON.parse(answer.text);
    } catch {
      throw new NodeUnreachable(`${method}: the node answered ${answer.status} with a body that is not JSON`);
    }
    if (!isRecord(reply)) throw new NodeUnreachable(`${method}: the node's answer is not a JSON-RPC response`);
    if (isRecord(reply.error)) {
      throw new NodeRpcError(method, typeof reply.error.code === 'number' ? reply.error.code : undefined, String(reply.error.message ?? 'error'));
    }
    return reply.result;
  }

  /** A request body sent as is; the node's status and body as they came. */
  forward(body: string): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          timeout: TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 502, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (error) => reject(new NodeUnreachable(error.message)));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
      req.on('error', (error) => reject(new NodeUnreachable(error.message)));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A JSON-RPC quantity (`0x1a`) as a number; throws on anything else. */
export function quantity(value: unknown, what: string): number {
  if (typeof value !== 'string' || !/^0x[0-9a-f]+$/i.test(value)) throw new NodeUnreachable(`${what}: not a quantity: ${String(value).slice(0, 40)}`);
  return Number.parseInt(value, 16);
}
