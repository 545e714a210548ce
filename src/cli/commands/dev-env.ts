import { UsageError } from '../../errors.js';
import type { Input } from '../spec.js';
import type { devSpec } from './top.js';

type DevOptions = Input<typeof devSpec>['options'];
/** The same options while they are being assembled here (a handler's input is read-only). */
type Assembling = { -readonly [K in keyof DevOptions]: DevOptions[K] };

/**
 * `svc dev`'s options from SVC_* environment variables, for containers and CI services, where
 * flags are awkward and environment is what the platform offers (CONTRACT §12 names
 * SVC_CONTROL_TOKEN). Precedence: defaults < config file < environment < flags. Only `svc dev`
 * reads them: `svc exec` is a throwaway run whose defaults (in memory, a free port) must not change
 * because a container or a shell exported SVC_PORT or SVC_DB for a long-running emulator.
 */
export const DEV_ENV = {
  SVC_PORT: 'port',
  SVC_HOST: 'host',
  SVC_DB: 'db',
  SVC_MEMORY: 'memory',
  SVC_DATABASE_URL: 'database',
  SVC_RESET: 'reset',
  SVC_FIXTURES: 'fixtures',
  SVC_SNAPSHOT: 'snapshot',
  SVC_EXPORT_ON_EXIT: 'exportOnExit',
  SVC_SEED: 'seed',
  SVC_CLOCK_START: 'clockStart',
  SVC_EXPOSE_CONTROL_PLANE: 'exposeControlPlane',
  SVC_CONTROL_TOKEN: 'controlToken',
  SVC_PUBLIC_URL: 'publicUrl',
  SVC_ALLOWED_HOSTS: 'allowedHost',
  SVC_CHAINS: 'chains',
  SVC_WEBHOOK_ALLOW: 'webhookAllow',
} as const satisfies Record<string, keyof DevOptions>;

/** The options the environment sets; an unset or empty variable sets nothing. Bad values: exit 2 naming the variable. */
export function devOptionsFromEnv(env: NodeJS.ProcessEnv): DevOptions {
  const out: Assembling = {};
  for (const [name, key] of Object.entries(DEV_ENV)) {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') continue;
    // One case per value type, so each assignment is checked against the option it sets.
    switch (key) {
      case 'port':
      case 'seed':
        out[key] = wholeNumber(name, raw);
        break;
      case 'memory':
      case 'reset':
      case 'exposeControlPlane':
      case 'chains':
        out[key] = boolean(name, raw);
        break;
      case 'allowedHost':
      case 'webhookAllow':
        out[key] = raw
          .split(',')
          .map((h) => h.trim())
          .filter((h) => h !== '');
        break;
      default:
        out[key] = raw;
    }
  }
  return out;
}

/**
 * Flags over the environment. `--allowed-host` adds to SVC_ALLOWED_HOSTS as it adds to the config
 * file's list; `--db`, `--memory` and `--database` are one choice, so any of them replaces all three variables.
 */
export function mergeDevOptions(fromEnv: DevOptions, flags: DevOptions): DevOptions {
  const merged: Assembling = { ...fromEnv };
  if (flags.db !== undefined || flags.memory !== undefined || flags.database !== undefined) {
    delete merged.db;
    delete merged.memory;
    delete merged.database;
  }
  // A flag left unset (undefined) keeps the environment's value.
  const set = Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined));
  Object.assign(merged, set);
  if (fromEnv.allowedHost || flags.allowedHost) merged.allowedHost = [...(fromEnv.allowedHost ?? []), ...(flags.allowedHost ?? [])];
  if (fromEnv.webhookAllow || flags.webhookAllow) merged.webhookAllow = [...(fromEnv.webhookAllow ?? []), ...(flags.webhookAllow ?? [])];
  return merged;
}

function wholeNumber(name: string, raw: string): number {
  if (!/^\d+$/.test(raw)) throw new UsageError(`${name} must be a whole number, not "${raw}"`, name);
  return Number(raw);
}

function boolean(name: string, raw: string): boolean {
  const value = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new UsageError(`${name} must be 1 or 0 (true or false), not "${raw}"`, name);
}
