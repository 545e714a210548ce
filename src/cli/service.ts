import { randomUUID } from 'node:crypto';
import { ServiceClient } from '../client/client.js';
import { ApiRefusedError } from '../client/errors.js';
import { UserError } from '../errors.js';
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
 * Which key a create uses: the partner key for sub-merchant work (`--merchant`); otherwise the
 * merchant key if there is one (the merchant variant), else the partner key.
 */
export function variantFor(target: Target, merchantFlag: unknown): 'partner' | 'merchant' {
  if (typeof merchantFlag === 'string' && merchantFlag !== '') return 'partner';
  return target.merchantKey ? 'merchant' : 'partner';
}

/**
 * Which key reads and acts on existing invoices: the partner key when there is one, because it
 * sees every one of its merchants' invoices (the merchant key sees only its own); else the merchant's.
 */
export function readerFor(target: Target): 'partner' | 'merchant' {
  return target.partnerKey ? 'partner' : 'merchant';
}

/**
 * Awaits a call to the emulator's control plane (`/__emulator/…`, behind a spinner). A real deployment
 * has no such routes and answers 404 `not_found`: that becomes a user error saying so, rather than a
 * bare "not found" that reads as if the merchant or invoice were missing.
 */
export async function controlPlane<T>(ctx: Context, target: Target, text: string, work: Promise<T>): Promise<T> {
  try {
    return await call(ctx, text, work);
  } catch (error) {
    if (error instanceof ApiRefusedError && error.status === 404 && error.error.code === 'not_found') {
      throw new UserError(
        `${target.baseUrl} is not the emulator: this command needs its control plane (/__emulator/)`,
        'not_an_emulator',
        'Run it against the local emulator (`svc dev`), or pass --base-url of one.',
      );
    }
    throw error;
  }
}
