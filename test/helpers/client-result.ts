/**
 * Assertions on what the typed client (`emulator.client`, src/client/typed.ts) answers, the
 * counterparts of `ok` and `expectError` (api-response.ts) for tests that call the API the way the
 * docs tell users to. The body's exact shape (`{"error":{code, message, param?}}` and nothing else)
 * is held for every response by the integration project's response checker (check-responses.ts).
 */
import { expect } from 'vitest';

type Result =
  | { ok: true; status: number; data: unknown; requestId: string | null; replayed: boolean }
  | { ok: false; status: number; error: { code: string; message: string; param?: string }; requestId: string | null };

/** Asserts a success with the status (200 by default; the refusal is in the message) and returns its data. */
export function dataOf<R extends Result>(result: R, status = 200): Extract<R, { ok: true }>['data'] {
  expect(result.status, JSON.stringify(result)).toBe(status);
  if (!result.ok) throw new Error(`expected ${status}, got ${result.status} ${JSON.stringify(result.error)}`);
  return result.data as Extract<R, { ok: true }>['data'];
}

/** Asserts a refusal: the status, the code, a non-empty message, a Request-Id, and `param` when one is given. */
export function expectRefused(result: Result, status: number, code: string, param?: string): void {
  expect(result.status, JSON.stringify(result)).toBe(status);
  if (result.ok) throw new Error(`expected ${status} ${code}, got a success: ${JSON.stringify(result.data)}`);
  expect(result.requestId).toMatch(/^req_/);
  expect(result.error.code, JSON.stringify(result.error)).toBe(code);
  expect(typeof result.error.message).toBe('string');
  expect(result.error.message.length).toBeGreaterThan(0);
  if (param !== undefined) expect(result.error.param).toBe(param);
}

/** {@link expectRefused}, and no `param` at all when none is given: "param only where a field is at fault". */
export function expectExactRefused(result: Result, status: number, code: string, param?: string): void {
  expectRefused(result, status, code, param);
  if (result.ok) return;
  expect(Object.keys(result.error).sort()).toEqual(param === undefined ? ['code', 'message'] : ['code', 'message', 'param']);
}
