/**
 * A small HTTP client for a spawned emulator that may be killed at any moment. Each client has its own
 * undici Agent, so connections to a killed process are never reused for its successor, and a request
 * the kill cuts (refused, reset, closed mid-response) comes back as `{ cut: true }` instead of throwing:
 * the load generators record it as "not acknowledged" and carry on.
 */
import { Agent, request } from 'undici';

export interface Answer {
  cut: false;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON, or undefined. */
  body: any;
  /** Date.now() when the answer had fully arrived. */
  at: number;
}

export interface Cut {
  cut: true;
  error: Error;
  at: number;
}

export type Reply = Answer | Cut;

export interface CallOptions {
  key?: string;
  body?: unknown;
  idempotencyKey?: string;
}

export class PlainClient {
  private readonly agent = new Agent({ connections: 64, keepAliveTimeout: 2_000 });

  constructor(readonly baseUrl: string) {}

  async call(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = {};
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    try {
      const res = await request(this.baseUrl + path, { method: method as 'GET', headers, body, dispatcher: this.agent });
      const text = await res.body.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { cut: false, status: res.statusCode, headers: res.headers, text, body: parsed, at: Date.now() };
    } catch (error) {
      return { cut: true, error: error as Error, at: Date.now() };
    }
  }

  /** Drops every connection at once (after a kill, nothing useful is left on them). */
  async close(): Promise<void> {
    await this.agent.destroy();
  }
}

/** The answer, or a thrown error naming what came back (for the checking phase, where no cut is allowed). */
export function answered(reply: Reply, what: string): Answer {
  if (reply.cut) throw new Error(`${what}: no answer (${reply.error.message})`);
  return reply;
}
