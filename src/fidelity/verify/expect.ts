import type { ContractChecker } from '../contract/contract-checker.js';
import { brief, str } from '../json.js';
import type { Answer } from './api.js';
import { CheckFailed } from './types.js';

/** An answer in a few words: `404 invoice_not_found ("No invoice …")`, or `201 {"id":…}`. */
export function summary(a: Answer): string {
  const code = str(a.json, 'error', 'code');
  if (code !== undefined) return `${a.status} ${code} (${brief(str(a.json, 'error', 'message') ?? '', 80)})`;
  return `${a.status} ${a.json === undefined ? brief(a.text, 120) : brief(a.json, 120)}`;
}

/** Fails unless `condition`: `expected` and `got` are what the report prints. */
export function expectThat(condition: boolean, expected: string, got: string): asserts condition {
  if (!condition) throw new CheckFailed(expected, got);
}

/** The answer has this status (any body). */
export function expectStatus(a: Answer, status: number, what = ''): void {
  expectThat(a.status === status, `${status}${what ? ` ${what}` : ''} from ${a.request.method} ${a.request.path}`, summary(a));
}

/**
 * The contract's error (§2): this status, this code, `param` naming the field when one is given,
 * and the body in the error shape `{"error":{"code","message","param"?}}` of the document.
 */
export function expectError(contract: ContractChecker, a: Answer, status: number, code: string, param?: string): void {
  const expected = `${status} ${code}${param ? ` (param ${param})` : ''} from ${a.request.method} ${a.request.path}`;
  expectThat(a.status === status && str(a.json, 'error', 'code') === code, expected, summary(a));
  const shape = contract.checkSchema('Error', a.json);
  expectThat(shape.length === 0, `${expected} in the error shape`, shape.map((p) => `${p.at || '/'} ${p.message}`).join('; '));
  if (param !== undefined) expectThat(str(a.json, 'error', 'param') === param, expected, `param ${JSON.stringify(str(a.json, 'error', 'param') ?? null)}`);
}

/** The answer matches its operation in the OpenAPI document: status declared, required headers, body schema. */
export function expectShape(contract: ContractChecker, a: Answer): void {
  const violations = contract.checkResponse(a.request, a.response);
  expectThat(
    violations.length === 0,
    `${a.label} as the OpenAPI document describes it`,
    violations
      .slice(0, 4)
      .map((v) => `${v.path} ${v.message}`)
      .join('; '),
  );
}

/** A success (2xx), or a failure naming what came instead. For set-up steps, which any success serves. */
export function expectSuccess(a: Answer, what: string): void {
  expectThat(a.status >= 200 && a.status < 300, `a success for ${what} (${a.request.method} ${a.request.path})`, summary(a));
}

/** `actual` equals `expected` (compared as JSON), `what` naming the value. */
export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  expectThat(JSON.stringify(actual) === JSON.stringify(expected), `${what} ${brief(expected)}`, brief(actual));
}
