import path from 'node:path';
import { ConfigFileError, flattenIssues, formatPath, lineFinder } from './problems.js';
import { type ConfigFile, configFileSchema } from './schema.js';
import { unknownKeys } from './unknown-keys.js';

/**
 * Validates a config object; `filepath` is only used in messages, `source` (the file's text, for a
 * JSON or YAML file) for their line numbers. Every problem is reported at once.
 */
export function validateConfig(raw: unknown, filepath: string, source?: string): { file: ConfigFile; warnings: string[] } {
  const shown = path.relative(process.cwd(), filepath) || filepath;
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) {
    // package.json holds the config under its "svc" key.
    const lineOf = lineFinder(source, path.basename(filepath) === 'package.json' ? ['svc'] : []);
    const problems = flattenIssues(parsed.error.issues).map((issue) => ({
      file: shown,
      line: lineOf(issue.path),
      field: formatPath(issue.path),
      message: issue.message,
    }));
    throw new ConfigFileError(shown, problems);
  }
  const warnings = unknownKeys(configFileSchema, raw).map((key) => `${shown}: ${key}: unknown setting, ignored`);
  return { file: parsed.data, warnings };
}
