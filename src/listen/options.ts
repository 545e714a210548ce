import type { ThrowingClient } from '../client/throwing.js';

/** What every listen mode needs: the service, and where and what to forward. */
export interface ListenOptions {
  client: ThrowingClient;
  baseUrl: string;
  forwardTo: string;
  /** Event types to forward, or null for all. */
  events: string[] | null;
  /** Added to every forwarded request (--header). */
  headers: Record<string, string>;
  timeoutSeconds: number;
}
