/**
 * Finding the `cloudflared` executable. Order: `CLOUDFLARED_BIN` (explicit wins, and a wrong value is
 * an error rather than a silent fallback), the `cloudflared` npm package's own binary, `cloudflared`
 * on PATH, and last the package's downloader. The package's postinstall download is often denied
 * (allowScripts, offline CI), so its binary may well be missing even though the package is installed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';

export type CloudflaredSource = 'CLOUDFLARED_BIN' | 'cloudflared package' | 'PATH';

/** Where cloudflared was found. */
export interface LocatedCloudflared {
  path: string;
  source: CloudflaredSource;
}

/** Seams for tests; the defaults use the `cloudflared` package. */
export interface LocateOptions {
  /** Where the package keeps its binary (default: its `DEFAULT_CLOUDFLARED_BIN`); null: skip the package. */
  packageBin?: string | null;
  /** Downloads the binary to the given path (default: the package's `install()`); false: do not try. */
  install?: ((to: string) => Promise<unknown>) | false;
  /** How long the download may take before we give up (default 15 s). */
  installTimeoutMs?: number;
}

const HINT =
  "Install cloudflared from Cloudflare's package repository or its releases page " +
  '(https://github.com/cloudflare/cloudflared/releases), or set CLOUDFLARED_BIN to its path; ' +
  'if the service can reach this machine directly, use --tunnel none instead.';

/** No cloudflared anywhere, and downloading it failed. The hint says what to do. */
export class TunnelUnavailableError extends UserError {
  constructor(
    /** Why the download failed, when it was tried. */
    override readonly cause?: unknown,
  ) {
    const why = cause === undefined ? '' : `Downloading it failed: ${describe(cause)}.\n`;
    super('cloudflared is not installed and could not be downloaded, so no tunnel can be opened.', 'cloudflared_missing', why + HINT);
  }
}

/**
 * Locates an executable cloudflared, trying the package's download last.
 * @throws UserError `cloudflared_bin_invalid` when CLOUDFLARED_BIN names something unusable
 * @throws TunnelUnavailableError when there is none and it cannot be installed
 */
export async function locateCloudflared(env: NodeJS.ProcessEnv = process.env, options: LocateOptions = {}): Promise<LocatedCloudflared> {
  const explicit = env.CLOUDFLARED_BIN;
  if (explicit !== undefined && explicit !== '') return { path: checkExplicit(explicit, env), source: 'CLOUDFLARED_BIN' };

  const packageBin = options.packageBin === undefined ? await packageBinaryPath() : options.packageBin;
  if (packageBin && isExecutableFile(packageBin)) return { path: packageBin, source: 'cloudflared package' };

  const onPath = findOnPath('cloudflared', env);
  if (onPath) return { path: onPath, source: 'PATH' };

  const install = options.install === undefined ? await packageInstall() : options.install;
  if (!install || !packageBin) throw new TunnelUnavailableError();
  try {
    await withTimeout(install(packageBin), options.installTimeoutMs ?? 15_000);
  } catch (err) {
    throw new TunnelUnavailableError(err);
  }
  if (isExecutableFile(packageBin)) return { path: packageBin, source: 'cloudflared package' };
  throw new TunnelUnavailableError(new Error(`the download left no executable at ${packageBin}`));
}

/**
 * Where the `cloudflared` package keeps (or would download) its binary, or null without the package.
 * Its exported `bin` is not used: it already folds in CLOUDFLARED_BIN, read once at import time.
 */
export async function packageBinaryPath(): Promise<string | null> {
  try {
    return (await import('cloudflared')).DEFAULT_CLOUDFLARED_BIN;
  } catch {
    return null;
  }
}

async function packageInstall(): Promise<((to: string) => Promise<unknown>) | false> {
  try {
    const { install } = await import('cloudflared');
    return (to: string) => install(to);
  } catch {
    return false;
  }
}

function checkExplicit(value: string, env: NodeJS.ProcessEnv): string {
  // A bare name ("cloudflared-2025") is looked up on PATH, like a shell would.
  const resolved = value.includes('/') || value.includes(path.sep) ? path.resolve(value) : findOnPath(value, env);
  const bad = (why: string) =>
    new UserError(
      `CLOUDFLARED_BIN is set to ${value}, but ${why}.`,
      'cloudflared_bin_invalid',
      'Point CLOUDFLARED_BIN at the cloudflared executable, or unset it.',
    );
  if (!resolved || !fs.existsSync(resolved)) throw bad('that file does not exist');
  if (!fs.statSync(resolved).isFile()) throw bad('that is not a file');
  if (!isExecutableFile(resolved)) throw bad('that file is not executable');
  return resolved;
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | null {
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      // node_modules/.bin/cloudflared is the package's JS wrapper, which would start its own download
      // and pass our arguments through: never mistake it for the real binary.
      if (isExecutableFile(candidate) && !isPackageWrapper(candidate)) return candidate;
    }
  }
  return null;
}

function isPackageWrapper(file: string): boolean {
  try {
    return /[\\/]node_modules[\\/]cloudflared[\\/]lib[\\/]/.test(fs.realpathSync(file));
  } catch {
    return false;
  }
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms / 100) / 10} s`)), ms);
    // The package's download cannot be cancelled; do not let our timer hold the process either.
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function describe(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\.$/, '');
}
