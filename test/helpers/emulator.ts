import { internalsOf } from '../../src/server/internals.js';
import { startEmulator, type Emulator, type StartEmulatorOptions } from '../../src/server/start.js';
import type { Store } from '../../src/store/store.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined when the body is not JSON. */
  body: T;
  text: string;
}

export interface CallOptions {
  /** Bearer key; omitted → no Authorization header. */
  key?: string;
  body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body). */
  raw?: string | Buffer;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

/** The public Emulator, plus what only our tests may touch: its database, and a small client. */
export interface TestEmulator extends Emulator {
  /** The emulator's database (not part of the public type; see src/server/internals.ts). */
  readonly store: Store;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
}

/** A real emulator on port 0 with an in-memory (or given) SQLite database, plus a small client. */
export async function startTestEmulator(options: StartEmulatorOptions = {}): Promise<TestEmulator> {
  const emulator = await startEmulator({ port: 0, db: ':memory:', ...options });
  const call = (method: string, path: string, options: CallOptions = {}) => request(emulator.url, method, path, options);
  return Object.assign(emulator, { store: internalsOf(emulator).store, call });
}

export async function request<T = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  let body: string | Buffer | undefined = options.raw;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  // Redirects are part of what is tested (the bind page answers 303): never follow them.
  const res = await fetch(baseUrl + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

let counter = 0;
/** A fresh idempotency key per call. */
export const ikey = (): string => `test-${process.pid}-${Date.now()}-${++counter}`;
