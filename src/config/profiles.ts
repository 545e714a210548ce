import path from 'node:path';
import { ConfigError } from '../errors.js';
import { findConfig } from './find.js';

export interface ProfileValues {
  baseUrl?: string;
  partnerKey?: string;
  merchantKey?: string;
  /** The remote control plane's token for this profile's base URL (`svc dev --control-token`, CONTRACT §12). */
  controlToken?: string;
}

export interface LoadedProfiles {
  profiles: Record<string, ProfileValues>;
  defaultProfile: string | undefined;
  filepath: string | null;
}

/**
 * Only the CLI's part of the config: `profiles` and `defaultProfile`, checked by hand. Every command
 * that talks to a service reads them, and the full schema (zod) would cost more to load than the
 * command takes to run; `svc dev` validates the whole file.
 */
export async function loadProfiles(cwd: string, explicitPath?: string): Promise<LoadedProfiles> {
  // Unreadable folders are skipped silently here: `svc dev` is where config warnings are shown.
  const { found: result } = await findConfig(cwd, explicitPath);
  if (!result || result.isEmpty) return { profiles: {}, defaultProfile: undefined, filepath: result?.filepath ?? null };
  const shown = path.relative(cwd, result.filepath) || result.filepath;
  const raw = isObject(result.config) ? result.config : {};
  const profiles: Record<string, ProfileValues> = {};
  if (raw.profiles !== undefined) {
    if (!isObject(raw.profiles)) throw new ConfigError(shown, 'profiles', 'must be an object of profile name to settings');
    for (const [name, value] of Object.entries(raw.profiles)) {
      if (!isObject(value)) throw new ConfigError(shown, `profiles.${name}`, 'must be an object');
      const profile: ProfileValues = {};
      for (const field of ['baseUrl', 'partnerKey', 'merchantKey', 'controlToken'] as const) {
        const v = value[field];
        if (v === undefined) continue;
        if (typeof v !== 'string' || v === '') throw new ConfigError(shown, `profiles.${name}.${field}`, 'must be a non-empty string');
        if (field === 'baseUrl' && !/^https?:\/\/[^/]/.test(v)) throw new ConfigError(shown, `profiles.${name}.baseUrl`, 'must be an http(s) URL');
        // As `svc dev --control-token` takes it (schema.ts): a shorter one is a typo, not a secret.
        if (field === 'controlToken' && (v.length < 16 || v.length > 255))
          throw new ConfigError(shown, `profiles.${name}.controlToken`, 'must be 16 to 255 characters');
        profile[field] = v;
      }
      profiles[name] = profile;
    }
  }
  const defaultProfile = raw.defaultProfile;
  if (defaultProfile !== undefined && typeof defaultProfile !== 'string') throw new ConfigError(shown, 'defaultProfile', 'must be a profile name');
  return { profiles, defaultProfile, filepath: result.filepath };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
