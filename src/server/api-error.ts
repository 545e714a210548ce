import type { ApiErrorBody, ErrorCode } from '../contract/errors.js';

/**
 * An error the API answers with, in the contract's shape:
 * `{"error":{"code":"…","message":"…","param":"…"}}` (CONTRACT §2). Throw it anywhere below a route.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** One of the contract's codes (src/contract/errors.ts), which the OpenAPI document lists. */
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    /** Extra response headers, e.g. `Allow` on a 405. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  toBody(): ApiErrorBody {
    return {
      error: this.param === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, param: this.param },
    };
  }
}

export const validationFailed = (param: string, message: string) => new ApiError(400, 'validation_failed', message, param);

export const notFound = (code: ErrorCode, message: string) => new ApiError(404, code, message);
