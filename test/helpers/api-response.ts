import { expect } from 'vitest';
import type { ApiResponse } from './emulator.js';

/** Asserts the status (200 by default; the body is in the message) and returns the body. */
export function ok<T = any>(res: ApiResponse<T>, status = 200): T {
  expect(res.status, `${res.status} ${res.text}`).toBe(status);
  return res.body;
}

/**
 * Asserts an error in the contract's shape (CONTRACT §2): the status, `{"error":{code, message,
 * param?}}` and nothing else, a non-empty message, a Request-Id, and `param` when one is given.
 */
export function expectError(res: ApiResponse, status: number, code: string, param?: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('request-id')).toMatch(/^req_/);
  expect(Object.keys(res.body ?? {}), res.text).toEqual(['error']);
  expect(res.body.error.code, res.text).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

/** {@link expectError}, and no `param` at all when none is given: "param only where a field is at fault". */
export function expectExactError(res: ApiResponse, status: number, code: string, param?: string): void {
  expectError(res, status, code, param);
  expect(Object.keys(res.body.error).sort()).toEqual(param === undefined ? ['code', 'message'] : ['code', 'message', 'param']);
}
