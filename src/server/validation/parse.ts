import { ApiError } from '../api-error.js';

/** A problem a validator found: zod's issue, as much of it as the answer needs. */
export interface Issue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** What validates a body or a query: a zod schema, or a zod-free one that answers alike (./invoice-bodies.ts). */
export interface Validator<T = unknown> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly Issue[] } };
}

/** Validates with a zod schema (or its like); the first problem becomes a 400 validation_failed naming the field. */
export function parseWith<T>(schema: Validator<T>, value: unknown, root = ''): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = joinPath(root, issue.path);
  const missing = issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined;
  throw new ApiError(400, 'validation_failed', missing ? `${param || 'body'} is required.` : describe(issue, param), param || undefined);
}

/** Zod does not keep the offending input on an issue; look it up to tell "missing" from "wrong". */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Reflect.get(v, seg);
  }
  return v;
}

function joinPath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : `${out ? '.' : ''}${String(seg)}`;
  return out;
}

function describe(issue: Issue, param: string): string {
  const name = param || 'body';
  // Messages written in the schemas are full sentences already (a capital, or a closing full stop:
  // "email must be an e-mail address." once came out as "email: email must be … address.."); zod's
  // defaults ("Invalid input: …", "Too big: …") get the field name and a full stop.
  const written = /^[A-Z`"]/.test(issue.message) && !issue.message.startsWith('Invalid') && !issue.message.startsWith('Too ');
  if (written || issue.message.endsWith('.')) {
    return issue.message;
  }
  return `${name}: ${issue.message}.`;
}
