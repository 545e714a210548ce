/** The service answered with an error (4xx/5xx): its contract-shaped body, kept as is. */
export class ApiRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly error: { code: string; message: string; param?: string },
    readonly requestId: string | null,
  ) {
    super(error.message);
  }
}

/** The service could not be reached at all (refused, DNS, timeout): exit code 3. */
export class ServiceUnreachableError extends Error {
  constructor(
    readonly baseUrl: string,
    readonly reason: string,
  ) {
    super(`cannot reach ${baseUrl}: ${reason}`);
  }
}
