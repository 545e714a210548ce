import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { SEARCH_PLACES } from './search-places.js';
import { errorCode, errorMessage, errorString } from '../domain/caught.js';

/** What a search found: the file's contents as cosmiconfig loaded them, or null. */
export interface FoundConfig {
  config: unknown;
  filepath: string;
  isEmpty?: boolean;
}

export interface FindResult {
  found: FoundConfig | null;
  /** Places that could not be read and were skipped: for the caller to show. */
  warnings: string[];
}

/**
 * The folders searched for a config, nearest first: from `cwd` up to the project root (the nearest
 * folder holding `package.json` or `.git`), never above it (CONTRACT §8). Outside any project only
 * `cwd` itself. A config file can run code (`svc.config.mjs`) and switch the server to every
 * interface, so a file in some parent folder (a shared /tmp, a home folder) must not be picked up.
 */
export function projectFolders(cwd: string): string[] {
  const start = path.resolve(cwd);
  const folders: string[] = [];
  for (let dir = start; ; dir = path.dirname(dir)) {
    folders.push(dir);
    if (isProjectRoot(dir)) return folders;
    if (path.dirname(dir) === dir) return [start];
  }
}

function isProjectRoot(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'package.json')) || fs.existsSync(path.join(dir, '.git'));
}

/** The user's own config folder (`$XDG_CONFIG_HOME/svc`, `~/.config/svc`): searched last. */
export function userConfigFolder(env: NodeJS.ProcessEnv = process.env): string {
  // HOME first, as os.homedir() reads it: node:os is then not loaded by a start (bench #12).
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'svc');
}

const USER_SEARCH_PLACES = ['config', 'config.json', 'config.yaml', 'config.yml', 'config.js', 'config.mjs', 'config.cjs'];

/**
 * Finds the config (project folders, then the user's config folder), or loads `explicitPath` (which
 * may be anywhere). A folder that cannot be read is skipped with a warning; a file that exists but
 * does not parse is a ConfigError naming it.
 */
export async function findConfig(cwd: string, explicitPath?: string): Promise<FindResult> {
  // cosmiconfig pulls in loaders for every format (~60 ms to import): load it only when there is a
  // file for it to read. Most runs of `svc dev` have no config file at all.
  const loadCosmiconfig = async () => (await import('cosmiconfig')).cosmiconfig;
  const warnings: string[] = [];
  if (explicitPath) {
    const cosmiconfig = await loadCosmiconfig();
    const file = path.resolve(cwd, explicitPath);
    try {
      return { found: await cosmiconfig('svc', { searchStrategy: 'none' }).load(file), warnings };
    } catch (error) {
      throw await unreadable(explicitPath, file, error);
    }
  }
  const places: [string, string[]][] = projectFolders(cwd).map((dir) => [dir, SEARCH_PLACES]);
  places.push([userConfigFolder(), USER_SEARCH_PLACES]);
  for (const [dir, searchPlaces] of places) {
    const access = folderAccess(dir);
    if (access === 'denied') warnings.push(`${dir} cannot be read (permission denied); its config files were skipped`);
    if (access !== 'ok' || !mayHoldConfig(dir, searchPlaces)) continue;
    // 'none': this folder only; the walk up is ours, bounded by the project root.
    const explorer = (await loadCosmiconfig())('svc', { searchPlaces, searchStrategy: 'none' });
    try {
      const found = await explorer.search(dir);
      if (found) return { found, warnings };
    } catch (error) {
      const code = errorCode(error);
      if (code === 'EACCES' || code === 'EPERM') {
        warnings.push(`${dir} cannot be read (permission denied); its config files were skipped`);
        continue;
      }
      const file = errorString(error, 'filepath') ?? dir; // cosmiconfig names the file it failed on
      throw await unreadable(path.relative(cwd, file) || file, file, error);
    }
  }
  return { found: null, warnings };
}

/**
 * A config file that exists but cannot be loaded. A JSON or YAML syntax error is said once, with its
 * line and column (`svc.config.json:3:14: not valid JSON: …`), not in cosmiconfig's words, which
 * repeat the path and quote the text around the mistake. (The YAML parser that finds the line is
 * loaded here, on this error's path only: 165 KB that every command would otherwise load.)
 */
async function unreadable(shown: string, file: string, error: unknown): Promise<ConfigError> {
  let source: string | undefined;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch {
    // Missing or unreadable: cosmiconfig's message says which.
  }
  const syntax = source === undefined ? null : (await import('./problems.js')).syntaxProblem(file, source);
  if (syntax) return new ConfigError(syntax.at ? `${shown}:${syntax.at}` : shown, '', syntax.reason);
  return new ConfigError(shown, '', `cannot be read: ${errorMessage(error)}`);
}

/**
 * Whether cosmiconfig could find a config in `dir`: one of `places` exists there (package.json only
 * with an "svc" key, the one it reads). When in doubt (unreadable, unparsable), yes: cosmiconfig then
 * reports what is wrong, as it did before this check.
 */
function mayHoldConfig(dir: string, places: readonly string[]): boolean {
  for (const place of places) {
    const file = path.join(dir, place);
    if (!fs.existsSync(file)) continue;
    if (place !== 'package.json') return true;
    try {
      const pkg: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (typeof pkg !== 'object' || pkg === null || 'svc' in pkg) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/** Whether the folder's files can be listed and read; 'denied' when it exists but cannot be. */
function folderAccess(dir: string): 'ok' | 'missing' | 'denied' {
  try {
    if (!fs.statSync(dir).isDirectory()) return 'missing';
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.X_OK);
    return 'ok';
  } catch (error) {
    const code = errorCode(error);
    return code === 'EACCES' || code === 'EPERM' ? 'denied' : 'missing';
  }
}
