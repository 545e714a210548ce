/**
 * The typed client with refusals thrown instead of returned: what the CLI and `svc webhook listen`
 * use, because their error handling (exit codes, messages, the `--json` error document) is built on
 * ApiRefusedError, while users' tests want the `{ ok, status, data | error }` result. Same calls,
 * same types of `data`.
 */
import type { OperationId } from '../contract/operations/index.js';
import { ApiRefusedError } from './errors.js';
import { type Client, type ClientData, type ClientOperationId, type DynamicInput, type DynamicResult, operationEntries } from './typed.js';

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
  controlHeaders: Client['controlHeaders'];
};

export function throwing(client: Client): ThrowingClient {
  const unwrap = <R extends DynamicResult>(result: R) => {
    if (!result.ok) throw new ApiRefusedError(result.status, result.error, result.requestId);
    return { status: result.status, data: result.data, requestId: result.requestId, replayed: result.replayed };
  };
  const call = async (id: OperationId, input?: DynamicInput) => unwrap(await client.call(id, input));
  const wrapped: Record<string, unknown> = { baseUrl: client.baseUrl, url: client.url, key: client.key, controlHeaders: client.controlHeaders, call };
  // Every method of the client is `call` with its operation id (typed.ts); streams have none.
  for (const [id] of operationEntries()) {
    if (typeof Reflect.get(client, id) === 'function') wrapped[id] = (input?: DynamicInput) => call(id, input);
  }
  return wrapped as ThrowingClient;
}
