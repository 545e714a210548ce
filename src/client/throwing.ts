/**
 * The typed client with refusals thrown instead of returned: what the CLI and `svc webhook listen`
 * use, because their error handling (exit codes, messages, the `--json` error document) is built on
 * ApiRefusedError, while users' tests want the `{ ok, status, data | error }` result. Same calls,
 * same types of `data`.
 */
import type { OperationId } from '../contract/operations/index.js';
import { ApiRefusedError } from './errors.js';
import type { Client, ClientData, ClientOperationId, DynamicResult } from './typed.js';

/** A success, as the service sent it. */
export interface Answer<T> {
  status: number;
  data: T;
  requestId: string | null;
  replayed: boolean;
}

type Thrown<Id extends ClientOperationId> = Client[Id] extends (...args: infer A) => Promise<unknown> ? (...args: A) => Promise<Answer<ClientData<Id>>> : never;

/** One method per operation, as `Client`'s; a refusal rejects with ApiRefusedError. */
export type ThrowingClient = { [Id in ClientOperationId]: Thrown<Id> } & {
  readonly baseUrl: string;
  call(id: OperationId, input?: Parameters<Client['call']>[1]): Promise<Answer<unknown>>;
  url: Client['url'];
  key: Client['key'];
};

export function throwing(client: Client): ThrowingClient {
  const unwrap = <R extends DynamicResult>(result: R) => {
    if (!result.ok) throw new ApiRefusedError(result.status, result.error, result.requestId);
    return { status: result.status, data: result.data, requestId: result.requestId, replayed: result.replayed };
  };
  const wrapped: Record<string, unknown> = { baseUrl: client.baseUrl, url: client.url, key: client.key };
  for (const [name, value] of Object.entries(client)) {
    if (typeof value !== 'function' || name === 'url' || name === 'key') continue;
    wrapped[name] = async (...args: unknown[]) => unwrap(await (value as (...a: unknown[]) => Promise<DynamicResult>)(...args));
  }
  return wrapped as ThrowingClient;
}
