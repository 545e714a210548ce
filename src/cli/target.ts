import { UsageError, UserError } from '../errors.js';
import { parseKey } from '../domain/keys.js';
import { didYouMean } from '../domain/suggest.js';
import type { Context } from './context.js';
import { findLocalState, type LocalEmulatorState } from './local-emulator.js';

/** Where a value came from, in the documented precedence: flags > environment > profile > local emulator. */
export type Source = 'flag' | 'environment' | `profile ${string}` | 'local emulator';

export interface Target {
  baseUrl: string;
  baseUrlSource: Source;
  partnerKey?: string | undefined;
  partnerKeySource?: Source | undefined;
  merchantKey?: string | undefined;
  merchantKeySource?: Source | undefined;
  /** The remote control plane's token (CONTRACT §12), sent on control requests only; never printed. */
  controlToken?: string | undefined;
  controlTokenSource?: Source | undefined;
  /** Set when the target is the local emulator recorded by `svc dev`. */
  local: (LocalEmulatorState & { file: string; running: boolean }) | null;
  profile: string | null;
}

interface Layer {
  source: Source;
  baseUrl?: string | undefined;
  partnerKey?: string | undefined;
  merchantKey?: string | undefined;
  controlToken?: string | undefined;
}

/**
 * Resolves the service and keys a command talks to, from flags, then environment (SVC_BASE_URL,
 * SVC_PARTNER_KEY, SVC_MERCHANT_KEY), then the profile (--profile, SVC_PROFILE, or the config's
 * defaultProfile), then the local emulator (.svc/dev.json, whose keys are only used when the base
 * URL is its own).
 *
 * The base URL takes the first layer that sets it. The keys are taken together from the first layer
 * that gives any key, and never mixed with a lower layer's: `--api-key <merchant key>` means that key
 * and no partner key at all. Otherwise a command that prefers the partner key (reads see every
 * merchant's invoices with it) would silently send the local emulator's partner key instead of the
 * key the user gave, and show or pay another merchant's invoice. A command that needs the kind of
 * key the flag did not give says so (service.ts `missingKeyError`).
 *
 * The control token (SVC_CONTROL_TOKEN, then the profile's `controlToken`, then the local emulator's
 * in `.svc/dev.json`) is taken on its own: the environment's always, a profile's or the local
 * emulator's only when the base URL in use is its own, so that a secret for one deployment is never
 * sent to another host (`--profile staging --base-url …`).
 */
export async function resolveTarget(ctx: Context): Promise<Target> {
  const layers: Layer[] = [];
  const flagKey = ctx.globals.apiKey;
  if (flagKey !== undefined) {
    const parsed = parseKey(flagKey);
    if (!parsed) throw new UsageError('--api-key is not a key: expected pt_test_, pt_live_, test_ or live_ followed by 32 letters and digits', '--api-key');
    layers.push({ source: 'flag', baseUrl: ctx.globals.baseUrl, [parsed.kind === 'partner' ? 'partnerKey' : 'merchantKey']: flagKey });
  } else if (ctx.globals.baseUrl !== undefined) {
    layers.push({ source: 'flag', baseUrl: ctx.globals.baseUrl });
  }
  layers.push({
    source: 'environment',
    baseUrl: nonEmpty(ctx.env.SVC_BASE_URL),
    partnerKey: nonEmpty(ctx.env.SVC_PARTNER_KEY),
    merchantKey: nonEmpty(ctx.env.SVC_MERCHANT_KEY),
    controlToken: nonEmpty(ctx.env.SVC_CONTROL_TOKEN),
  });

  const profileName = ctx.globals.profile ?? nonEmpty(ctx.env.SVC_PROFILE);
  // When flags and environment already give the base URL and a key, no profile can change the
  // outcome (they come first): skip reading the config, which is most of a script's start-up time.
  const settled = layers.some((l) => l.baseUrl !== undefined) && layers.some(hasKey);
  const profile = settled && profileName === undefined ? null : await loadProfile(ctx, profileName);
  if (profile) layers.push({ source: `profile ${profile.name}`, ...profile.values });

  const found = findLocalState(ctx.cwd);
  // A stale file (its pid no live `svc dev`) is ignored (CONTRACT §8): `svc status` still shows it.
  const local = found?.running ? { ...found.state, file: found.file, running: true } : null;

  const urlLayer = layers.find((l) => l.baseUrl !== undefined);
  const baseUrl = urlLayer?.baseUrl ?? local?.baseUrl;
  if (!baseUrl) {
    throw new UserError(
      'no service to talk to',
      'no_target',
      'Start the local emulator with `svc dev` (in this folder), or pass --base-url, set SVC_BASE_URL, or choose a --profile.',
    );
  }
  const isLocal = local !== null && trimSlash(baseUrl) === trimSlash(local.baseUrl);
  if (isLocal) {
    // Its control token too (CONTRACT §8): with one, the emulator wants it from loopback clients as well.
    layers.push({
      source: 'local emulator',
      baseUrl: local.baseUrl,
      partnerKey: local.keys.test.partnerKey,
      merchantKey: local.keys.test.merchantKey,
      controlToken: local.controlToken,
    });
  }
  const keys = layers.find(hasKey);
  const tokenLayer = layers.find(
    (l) => l.controlToken !== undefined && (l.source === 'environment' || (l.baseUrl !== undefined && trimSlash(l.baseUrl) === trimSlash(baseUrl))),
  );
  return {
    baseUrl: trimSlash(baseUrl),
    baseUrlSource: urlLayer?.source ?? 'local emulator',
    partnerKey: keys?.partnerKey,
    partnerKeySource: keys?.partnerKey ? keys.source : undefined,
    merchantKey: keys?.merchantKey,
    merchantKeySource: keys?.merchantKey ? keys.source : undefined,
    controlToken: tokenLayer?.controlToken,
    controlTokenSource: tokenLayer?.source,
    local: isLocal ? local : null,
    profile: profile?.name ?? null,
  };
}

const hasKey = (l: Layer) => l.partnerKey !== undefined || l.merchantKey !== undefined;

async function loadProfile(ctx: Context, name: string | undefined) {
  const { loadProfiles } = await import('../config/profiles.js');
  const loaded = await loadProfiles(ctx.cwd, ctx.globals.config);
  const chosen = name ?? loaded.defaultProfile;
  if (!chosen) return null;
  const values = loaded.profiles[chosen];
  if (!values) {
    const known = Object.keys(loaded.profiles);
    const missing = `no profile "${chosen}"${loaded.filepath ? ` in ${loaded.filepath}` : ' (no config file found)'}`;
    const fix = known.length ? `Known profiles: ${known.join(', ')}.` : 'Add one under "profiles" in svc.config.json.';
    // The config's own default profile naming none is the file's mistake (exit 1); a name typed on
    // the command line or in SVC_PROFILE is a usage error naming where it came from, like any typo.
    if (name === undefined) throw new UserError(missing, 'unknown_profile', fix);
    const from = ctx.globals.profile !== undefined ? '--profile' : 'SVC_PROFILE';
    throw new UsageError(`${from}: ${missing}.${didYouMean(chosen, known)} ${fix}`, from);
  }
  return { name: chosen, values };
}

const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
const trimSlash = (url: string) => url.replace(/\/+$/, '');
