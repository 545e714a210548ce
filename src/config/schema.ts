import * as z from 'zod';
import { knownNetworkIds } from '../domain/chains.js';
import type { Environment } from '../domain/environment.js';
import { parseDuration } from '../domain/duration.js';
import { parseKey } from '../domain/keys.js';
import { allowedHostProblem } from '../domain/allowed-hosts.js';
import { webhookAllowProblem } from '../domain/webhook-allow.js';

/** `"90s"`, `"15m"`, `"2h"`, `"1d"` or a number of seconds; parsed to milliseconds. */
const duration = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === null) {
    ctx.addIssue({ code: 'custom', message: `${JSON.stringify(value)} is not a duration (use 90s, 15m, 2h, 1d or seconds)` });
    return z.NEVER;
  }
  return ms;
});

const chainList = (env: Environment) =>
  z.union(
    [
      z.literal('all'),
      z.array(
        z
          .number()
          .int()
          .refine((id) => knownNetworkIds(env).includes(id), {
            error: (issue) => `unknown ${env} networkId ${String(issue.input)} (known: ${knownNetworkIds(env).join(', ')})`,
          }),
      ),
    ],
    { error: `must be "all" or a list of ${env} networkIds` },
  );

const pinnedKey = (kind: 'partner' | 'merchant', env: Environment) =>
  z.string().refine(
    (k) => {
      const parsed = parseKey(k);
      return parsed?.kind === kind && parsed.environment === env;
    },
    `must be a ${env} ${kind} key: ${kind === 'partner' ? 'pt_' : ''}${env}_ followed by 32 letters and digits`,
  );

const pinned = (env: Environment) => z.object({ partnerKey: pinnedKey('partner', env).optional(), merchantKey: pinnedKey('merchant', env).optional() });

/** A named target for the CLI (`--profile`): a base URL, the keys to use there, and its control token (CONTRACT §12). */
export const profileSchema = z.object({
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  partnerKey: z.string().optional(),
  merchantKey: z.string().optional(),
  controlToken: z.string().min(16, 'must be at least 16 characters').max(255).optional(),
});

const PORT_RULE = 'must be a port number from 0 to 65535';

/** The config file, as written by people: every field optional. */
export const configFileSchema = z.object({
  port: z.number({ error: PORT_RULE }).int(PORT_RULE).min(0, PORT_RULE).max(65535, PORT_RULE).optional(),
  host: z.string().min(1).optional(),
  database: z.string().min(1).optional(),
  invoiceLifetime: duration.refine((ms) => ms >= 1000, 'must be at least 1 second').optional(),
  // The networks enabled per environment; or `true`: run a local chain per EVM test network (CONTRACT §14).
  chains: z
    .union([z.boolean(), z.object({ test: chainList('test').optional(), live: chainList('live').optional() })], {
      error: 'must be true (local chains, svc dev --chains) or { test, live } (the networks enabled)',
    })
    .optional(),
  // Blocks a local chain's payment needs, its own included (1: confirmed in its own block).
  chainConfirmations: z.number().int().min(1).max(64).optional(),
  keys: z.object({ test: pinned('test').optional(), live: pinned('live').optional() }).optional(),
  webhooks: z
    .object({
      retrySchedule: z
        .array(duration.refine((ms) => ms >= 1000, 'each retry must wait at least 1 second'))
        .max(20)
        .optional(),
      timeout: duration.refine((ms) => ms >= 100 && ms <= 60_000, 'must be between 100ms and 60s').optional(),
    })
    .optional(),
  exposeControlPlane: z.boolean().optional(),
  // The remote control plane's bearer token (CONTRACT §12): long enough not to be guessed.
  controlToken: z.string().min(16, 'must be at least 16 characters').max(255).optional(),
  // The base URL clients reach the emulator at (checkoutUrl, bindUrl; its host is allowed).
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
  // The request journal's ring (CONTRACT §9): entries kept, 0 to keep none.
  journalSize: z.number().int().min(0).max(100_000).optional(),
  // Deterministic runs (CONTRACT §9): every generated id and key from the seed; the clock from clockStart.
  seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  clockStart: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time such as 2030-01-01T00:00:00Z' }).optional(),
  // Host names to serve besides loopback (DNS rebinding protection, CONTRACT §8); "all" lifts the check.
  allowedHosts: z
    .union([
      z.literal('all'),
      z.array(
        z.string().superRefine((entry, ctx) => {
          const problem = allowedHostProblem(entry);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      ),
    ])
    .optional(),
  // Internal webhook receivers an emulator listening beyond loopback may still reach (CONTRACT §8).
  webhookAllow: z
    .array(
      z.string().superRefine((entry, ctx) => {
        const problem = webhookAllowProblem(entry);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    )
    .optional(),
  profiles: z.record(z.string(), profileSchema).optional(),
  defaultProfile: z.string().optional(),
});

export type ConfigFile = z.output<typeof configFileSchema>;
export type Profile = z.output<typeof profileSchema>;
