import fs from 'node:fs';
import { defaultConfig, type EmulatorConfig } from './defaults.js';
import type { ConfigFile } from './schema.js';

export interface LoadedConfig {
  /** The validated file, or an empty object when there is none. */
  file: ConfigFile;
  /** Where it was found, or null. */
  filepath: string | null;
  /** Diagnostics for the caller to show: the loader never prints. */
  warnings: string[];
}

export { SEARCH_PLACES } from './search-places.js';
import { findConfig } from './find.js';

/**
 * Finds the config from `cwd` up to the project root (then the user's config folder), or loads
 * `explicitPath`, then validates it. Errors name the file and the field.
 */
export async function loadConfig(options: { cwd?: string; explicitPath?: string } = {}): Promise<LoadedConfig> {
  const { found, warnings } = await findConfig(options.cwd ?? process.cwd(), options.explicitPath);
  if (!found || found.isEmpty) return { file: {}, filepath: found?.filepath ?? null, warnings };
  // zod and the config's schema load only when there is a file to check (start-up, bench #12).
  const { validateConfig } = await import('./validate.js');
  const validated = validateConfig(found.config, found.filepath, dataSource(found.filepath));
  return { file: validated.file, filepath: found.filepath, warnings: [...warnings, ...validated.warnings] };
}

/** The text of a JSON or YAML config (for line numbers in messages); undefined for code. */
function dataSource(filepath: string): string | undefined {
  if (!/(\.json|\.ya?ml|[\\/]\.svcrc)$/i.test(filepath)) return undefined;
  try {
    return fs.readFileSync(filepath, 'utf8');
  } catch {
    return undefined;
  }
}

/** Defaults < config file. (Flags are applied by the caller, after this.) */
export function resolveConfig(file: ConfigFile): EmulatorConfig {
  const config = defaultConfig();
  if (file.port !== undefined) config.port = file.port;
  if (file.host !== undefined) config.host = file.host;
  if (file.database !== undefined) config.database = file.database;
  if (file.invoiceLifetime !== undefined) config.invoiceLifetimeSeconds = Math.round(file.invoiceLifetime / 1000);
  if (typeof file.chains === 'boolean') config.localChains = file.chains;
  else {
    if (file.chains?.test !== undefined) config.chains.test = file.chains.test;
    if (file.chains?.live !== undefined) config.chains.live = file.chains.live;
  }
  if (file.chainConfirmations !== undefined) config.chainConfirmations = file.chainConfirmations;
  if (file.keys?.test) config.keys.test = { ...file.keys.test };
  if (file.keys?.live) config.keys.live = { ...file.keys.live };
  if (file.webhooks?.retrySchedule) config.webhooks.retrySchedule = file.webhooks.retrySchedule.map((ms) => ms / 1000);
  if (file.webhooks?.timeout !== undefined) config.webhooks.timeoutMs = file.webhooks.timeout;
  if (file.exposeControlPlane !== undefined) config.exposeControlPlane = file.exposeControlPlane;
  if (file.controlToken !== undefined) config.controlToken = file.controlToken;
  if (file.publicUrl !== undefined) config.publicUrl = file.publicUrl.replace(/\/+$/, '');
  if (file.journalSize !== undefined) config.journalSize = file.journalSize;
  if (file.seed !== undefined) config.seed = file.seed;
  if (file.clockStart !== undefined) config.clockStart = file.clockStart;
  if (file.webhookAllow !== undefined) config.webhookAllow = [...file.webhookAllow];
  if (file.allowedHosts !== undefined) config.allowedHosts = file.allowedHosts === 'all' ? ['all'] : [...file.allowedHosts];
  return config;
}
