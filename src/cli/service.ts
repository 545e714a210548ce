import { randomUUID } from 'node:crypto';
import { ServiceClient } from '../client/client.js';
import type { Context } from './context.js';
import { withSpinner } from './output/spinner.js';
import { resolveTarget, type Target } from './target.js';

export interface Connection {
  client: ServiceClient;
  target: Target;
}

/** The client for the resolved target (flags > environment > profile > local emulator). */
export async function connect(ctx: Context): Promise<Connection> {
  const target = await resolveTarget(ctx);
  return { client: new ServiceClient(target), target };
}

/** Awaits an API call behind a spinner (only shown on a TTY when it takes a moment). */
export function call<T>(ctx: Context, text: string, work: Promise<T>): Promise<T> {
  return withSpinner(ctx, text, work);
}

/** The Idempotency-Key for a create: the flag's, or a fresh UUID (shown with --verbose). */
export function idempotencyKey(ctx: Context, given: unknown): string {
  if (typeof given === 'string' && given !== '') return given;
  const key = randomUUID();
  if (ctx.verbose && !ctx.json) ctx.stderr.write(`Idempotency-Key: ${key}\n`);
  return key;
}

/**
 * Partner or merchant variant: a partner key is needed for sub-merchant work (`--merchant`);
 * otherwise the merchant key if there is one, else the partner key.
 */
export function variantFor(target: Target, merchantFlag: unknown): 'partner' | 'merchant' {
  if (typeof merchantFlag === 'string' && merchantFlag !== '') return 'partner';
  return target.merchantKey ? 'merchant' : 'partner';
}
