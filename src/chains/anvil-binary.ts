/**
 * Finding anvil, Foundry's local node (CONTRACT §14). It comes from the npm package
 * `@foundry-rs/anvil`, an optional dependency of svc: that package's only front door is its `bin`, a
 * Node wrapper that spawns the real binary, which lives in one per-platform package
 * (`@foundry-rs/anvil-linux-amd64`, …) listed in its `optionalDependencies`, each declaring its
 * platform (`os`, `cpu`) and its binary (`bin`) in its manifest. svc reads those manifests rather than
 * guess a path, and runs the binary itself: a wrapper process per node would cost a Node start each
 * and, killed, would leave its anvil running. `SVC_ANVIL` names a binary instead (another build, a
 * CI cache; tests point it at a missing file to play the package's absence).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { UserError } from '../errors.js';

export const ANVIL_PACKAGE = '@foundry-rs/anvil';

/** `--chains` without anvil: one line naming the package (exit 1). */
export class AnvilMissing extends UserError {
  constructor(why: string) {
    super(`--chains runs anvil from the optional package ${ANVIL_PACKAGE}, ${why} (npm install ${ANVIL_PACKAGE})`, 'anvil_missing');
  }
}

/** A manifest's fields read here; anything else in it is the package's business. */
interface Manifest {
  os?: unknown;
  cpu?: unknown;
  bin?: unknown;
  optionalDependencies?: unknown;
}

/**
 * The anvil executable to run: `SVC_ANVIL`, else the binary of the platform package of
 * `@foundry-rs/anvil` installed beside svc.
 * @param from where svc's own dependencies are resolved from (tests pass a folder without them)
 * @throws AnvilMissing naming the package when there is none
 */
export function locateAnvil(env: NodeJS.ProcessEnv = process.env, from: string = import.meta.url): string {
  const explicit = env.SVC_ANVIL?.trim();
  if (explicit) {
    const file = path.resolve(explicit);
    if (!isExecutable(file)) throw new AnvilMissing(`and SVC_ANVIL=${explicit} is not an executable file`);
    return file;
  }
  const require = createRequire(from);
  let manifestFile: string;
  try {
    manifestFile = require.resolve(`${ANVIL_PACKAGE}/package.json`);
  } catch {
    throw new AnvilMissing('which is not installed');
  }
  const own = readManifest(manifestFile);
  const candidates = own && isRecord(own.optionalDependencies) ? Object.keys(own.optionalDependencies) : [];
  // Resolved from the wrapper package: a package manager that nests its dependencies puts them there.
  const fromWrapper = createRequire(manifestFile);
  for (const name of candidates) {
    let file: string;
    try {
      file = fromWrapper.resolve(`${name}/package.json`);
    } catch {
      continue;
    }
    const manifest = readManifest(file);
    if (!manifest || !fits(manifest.os, process.platform) || !fits(manifest.cpu, process.arch)) continue;
    const bin = typeof manifest.bin === 'string' ? manifest.bin : isRecord(manifest.bin) ? manifest.bin.anvil : undefined;
    if (typeof bin !== 'string') continue;
    const binary = path.resolve(path.dirname(file), bin);
    if (isExecutable(binary)) return binary;
  }
  throw new AnvilMissing(`which is installed without its binary for ${process.platform}-${process.arch}`);
}

function readManifest(file: string): Manifest | null {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** npm's `os`/`cpu` rule: listed (or not excluded with `!`), or no list at all. */
function fits(list: unknown, value: string): boolean {
  if (!Array.isArray(list)) return true;
  if (list.includes(`!${value}`)) return false;
  const allowed = list.filter((entry) => typeof entry === 'string' && !entry.startsWith('!'));
  return allowed.length === 0 || allowed.includes(value);
}

function isExecutable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
