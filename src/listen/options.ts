import type { ServiceClient } from '../client/client.js';

/** What every listen mode needs: the service, and where and what to forward. */
export interface ListenOptions {
  client: ServiceClient;
  baseUrl: string;
  forwardTo: string;
  /** Event types to forward, or null for all. */
  events: string[] | null;
  /** Added to every forwarded request (--header). */
  headers: Record<string, string>;
  timeoutSeconds: number;
}
