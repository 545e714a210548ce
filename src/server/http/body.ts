import type { IncomingMessage } from 'node:http';
import { ApiError } from '../api-error.js';
import { exceedsValueBudget, MAX_JSON_VALUES } from './json-budget.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Whether the request carries a body at all (a length above zero, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * Reads the body, refusing more than 1 MiB (413) and senders slower than `timeoutMs` in total (408),
 * both as contract-shaped errors rather than a dropped socket.
 */
export function readBody(req: IncomingMessage, timeoutMs: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      finish(new ApiError(408, 'request_timeout', `The request body did not arrive within ${timeoutMs / 1000} s.`));
    }, timeoutMs);
    const finish = (error?: ApiError) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError);
      if (error) {
        // Stop reading, but keep the socket readable so the error response can be written.
        req.pause();
        reject(error);
      } else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) finish(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = () => finish(new ApiError(400, 'invalid_request', 'The request body could not be read.'));
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

const tooLarge = () => new ApiError(413, 'payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB).`);

/** 415 unless the body is declared as JSON (`application/json`, any parameters, any case). */
export function checkJsonContentType(req: IncomingMessage): void {
  const type = req.headers['content-type'];
  const essence = type?.split(';')[0]?.trim().toLowerCase();
  if (essence !== 'application/json') {
    throw new ApiError(415, 'unsupported_media_type', type ? `Content-Type must be application/json, not ${type}.` : 'Content-Type must be application/json.');
  }
}

/**
 * Parses a body that must be a JSON object (400 invalid_json otherwise). A body holding more than
 * 10,000 values is refused first, unparsed (413, CONTRACT §8 "Bounded work per request").
 */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  const value = parseJsonValue(raw);
  if (!isJsonObject(value)) {
    throw new ApiError(400, 'invalid_json', 'The request body must be a JSON object.');
  }
  return value;
}

/**
 * A JSON-RPC body (a local chain's RPC, CONTRACT §14): an object, or a batch, a non-empty array of
 * objects; the same limits as any body.
 */
export function parseJsonRpcBody(raw: Buffer): Record<string, unknown> | Record<string, unknown>[] {
  const value = parseJsonValue(raw);
  if (isJsonObject(value)) return value;
  if (Array.isArray(value) && value.length > 0 && value.every(isJsonObject)) return value;
  throw new ApiError(400, 'invalid_json', 'The request body must be a JSON-RPC request (an object) or a batch of them (an array of objects).');
}

/** Any JSON value within the limits: the value budget first (unparsed), then the depth. */
function parseJsonValue(raw: Buffer): object {
  if (exceedsValueBudget(raw)) {
    throw new ApiError(
      413,
      'payload_too_large',
      `The request body holds more than ${MAX_JSON_VALUES.toLocaleString('en-US')} JSON values; the emulator refuses bodies that wide, whatever their size in bytes.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError(400, 'invalid_json', raw.length === 0 ? 'The request body is empty; send a JSON object.' : 'The request body is not valid JSON.');
  }
  if (value === null || typeof value !== 'object') {
    throw new ApiError(400, 'invalid_json', 'The request body must be a JSON object.');
  }
  // Later passes (canonical JSON, the fee-field scan) recurse; a 5,000-level body must not reach them.
  if (depthExceeds(value, MAX_JSON_DEPTH)) {
    throw new ApiError(400, 'invalid_json', `The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  return value;
}

/** A parsed JSON object: any non-null, non-array object's keys hold unknown values. */
const isJsonObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

export const MAX_JSON_DEPTH = 64;

/** Iterative, so the check itself cannot overflow the stack. */
function depthExceeds(root: object, max: number): boolean {
  const stack: [object, number][] = [[root, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
