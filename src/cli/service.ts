import { ApiRefusedError } from '../client/errors.js';
import { throwing, type ThrowingClient } from '../client/throwing.js';
import { createClient, type ClientOptions, type SentRequest } from '../client/typed.js';
import type { OperationSpec } from '../contract/operation.js';
import { OPERATIONS } from '../contract/operations/index.js';
import { nonSecretRandom } from '../domain/random.js';
import { UsageError, UserError } from '../errors.js';
import type { Context } from './context.js';
import { esc } from './output/escape.js';
import { withSpinner } from './output/spinner.js';
import type { Variant } from './invoice-calls.js';
import { resolveTarget, type Target } from './target.js';

export interface Connection {
  client: ThrowingClient;
  target: Target;
}

/**
 * The typed client (src/client/typed.ts) as the CLI uses it: a refusal throws ApiRefusedError,
 * which output/render.ts turns into the error document and exit 1, as for every command.
 */
export function cliClient(options: ClientOptions): ThrowingClient {
  return throwing(createClient(options));
}

/**
 * The client for the resolved target (flags > environment > profile > local emulator). It sends
 * exactly the target's keys; a call needing a kind of key the target lacks fails with
 * `missingKeyError`, and `--verbose` names the key each request carries.
 */
export async function connect(ctx: Context): Promise<Connection> {
  const target = await resolveTarget(ctx);
  const client = cliClient({
    baseUrl: target.baseUrl,
    partnerKey: target.partnerKey,
    merchantKey: target.merchantKey,
    controlToken: target.controlToken,
    missingKey: (kind) => missingKeyError(ctx, target, kind),
    ...(ctx.verbose ? { onSend: (r) => ctx.stderr.write(`${sentLine(r, target)}\n`) } : {}),
  });
  return { client, target };
}

/**
 * `GET /v1/partner/invoices/… with pt_test_…a1B2 (partner key, flag)`: what --verbose prints per
 * request; a control request that carries the control token says so and where it came from, never
 * any of its characters (unlike a key's tail, a part of a password-like secret helps a guesser).
 */
function sentLine(r: SentRequest, target: Target): string {
  const op: OperationSpec = OPERATIONS[r.operationId];
  const token = op.control && target.controlToken ? ` and the control token (${target.controlTokenSource})` : '';
  if (r.kind === 'none' || !r.key) return esc(`${r.method} ${r.path} without a key${token}`);
  const source = r.kind === 'partner' ? target.partnerKeySource : target.merchantKeySource;
  return esc(`${r.method} ${r.path} with ${keyTail(r.key)} (${r.kind} key, ${source ?? 'unknown source'})${token}`);
}

/** A key as --verbose shows it: its prefix and last four characters (`pt_test_…a1B2`). */
export function keyTail(key: string): string {
  const prefix = key.slice(0, key.lastIndexOf('_') + 1);
  return `${prefix}…${key.slice(-4)}`;
}

const EXAMPLE = { partner: 'pt_test_…', merchant: 'test_…' } as const;

/**
 * The error for a command that needs a kind of key the target lacks. When `--api-key` gave the other
 * kind, no other layer supplies one (target.ts): that is a usage error naming the flag (exit 2). Else
 * a user error naming the key it needs and the ways to give one.
 */
export function missingKeyError(ctx: Pick<Context, 'command'>, target: Target, kind: 'partner' | 'merchant'): UserError {
  const command = ctx.command ? `\`svc ${ctx.command}\`` : 'this command';
  const other = kind === 'partner' ? target.merchantKey : target.partnerKey;
  const otherSource = kind === 'partner' ? target.merchantKeySource : target.partnerKeySource;
  if (other && otherSource === 'flag') {
    const otherKind = kind === 'partner' ? 'merchant' : 'partner';
    return new UsageError(
      `${command} needs a ${kind} key, and --api-key gave a ${otherKind} key (${keyTail(other)}); pass a ${kind} key (${EXAMPLE[kind]}) with --api-key`,
      '--api-key',
    );
  }
  const env = kind === 'partner' ? 'SVC_PARTNER_KEY' : 'SVC_MERCHANT_KEY';
  const given =
    other && otherSource
      ? ` (${otherSource === 'local emulator' ? 'the local emulator' : otherSource} gives only a ${kind === 'partner' ? 'merchant' : 'partner'} key)`
      : '';
  return new UserError(
    `${command} needs a ${kind} key, and there is none for ${target.baseUrl}${given}`,
    'missing_key',
    `Pass --api-key ${EXAMPLE[kind]}, set ${env}, choose a --profile, or run \`svc dev\` in this folder.`,
  );
}

/** Awaits an API call behind a spinner (only shown on a TTY when it takes a moment). */
export function call<T>(ctx: Context, text: string, work: Promise<T>): Promise<T> {
  return withSpinner(ctx, text, work);
}

/** The Idempotency-Key for a create: the flag's, or a fresh UUID (shown with --verbose). */
export function idempotencyKey(ctx: Context, given: unknown): string {
  if (typeof given === 'string' && given !== '') return given;
  // A key must differ from other creates' keys, not be secret: no node:crypto on a create's start.
  const key = nonSecretRandom.uuid();
  if (ctx.verbose && !ctx.json) ctx.stderr.write(`Idempotency-Key: ${key}\n`);
  return key;
}

/**
 * Which variant an invoice create uses, and for which merchant. With `--merchant`, the partner
 * variant (sub-merchant work). Otherwise the merchant variant when there is a merchant key; with a
 * partner key alone, the partner variant for the local emulator's default merchant when the key is
 * that emulator's own default partner key (its merchant is known), and a usage error otherwise: the
 * service would only answer `validation_failed (merchantId)`. With no key at all, the merchant
 * variant, so that the missing-key error names the key a plain create needs.
 */
export function variantFor(ctx: Pick<Context, 'command'>, target: Target, merchantFlag: unknown): Variant {
  if (typeof merchantFlag === 'string' && merchantFlag !== '') return { variant: 'partner', merchantId: merchantFlag };
  if (target.merchantKey || !target.partnerKey) return { variant: 'merchant' };
  const merchantId = defaultMerchantOf(target);
  if (merchantId) return { variant: 'partner', merchantId };
  throw new UsageError(
    `\`svc ${ctx.command}\` with a partner key needs --merchant <id> (the sub-merchant it is for); or use a merchant key (--api-key ${EXAMPLE.merchant}, SVC_MERCHANT_KEY)`,
    '--merchant',
  );
}

/** The local emulator's default merchant, when the partner key in use is that emulator's default partner key. */
function defaultMerchantOf(target: Target): string | undefined {
  if (!target.local) return undefined;
  for (const env of ['test', 'live'] as const) {
    if (target.partnerKey === target.local.keys[env].partnerKey) return target.local.keys[env].merchantId;
  }
  return undefined;
}

/**
 * Which key reads and acts on existing invoices: the partner key when there is one, because it
 * sees every one of its merchants' invoices (the merchant key sees only its own); else the merchant's.
 * Both come from the same layer (target.ts), so this never replaces a key the user gave.
 */
export function readerFor(target: Target): 'partner' | 'merchant' {
  return target.partnerKey ? 'partner' : 'merchant';
}

/**
 * Awaits a call to the emulator's control plane (the contract's `control` operations, behind a spinner). A real deployment
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
