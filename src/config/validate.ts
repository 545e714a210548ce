import path from 'node:path';
import { ConfigError } from '../errors.js';
import { type ConfigFile, configFileSchema } from './schema.js';
import { unknownKeys } from './unknown-keys.js';

/** Validates a config object; `filepath` is only used in messages. */
export function validateConfig(raw: unknown, filepath: string): { file: ConfigFile; warnings: string[] } {
  const shown = path.relative(process.cwd(), filepath) || filepath;
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(shown, formatPath(issue.path), issue.message);
  }
  const warnings = unknownKeys(configFileSchema, raw).map((key) => `${shown}: ${key}: unknown setting, ignored`);
  return { file: parsed.data, warnings };
}

function formatPath(segments: readonly PropertyKey[]): string {
  return segments.map((s, i) => (typeof s === 'number' ? `[${s}]` : `${i === 0 ? '' : '.'}${String(s)}`)).join('');
}
