/**
 * Finding anvil (CONTRACT §14): through the manifests of @foundry-rs/anvil and its per-platform
 * packages, or SVC_ANVIL; without it, one line naming the package.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AnvilMissing, locateAnvil } from '../../src/chains/anvil-binary.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('svc-anvil-binary-');

/** A project folder with a fake @foundry-rs/anvil whose platform packages are `platforms`. */
function project(name: string, platforms: { name: string; os: string[]; cpu: string[]; bin?: string; file?: boolean }[]): string {
  const root = path.join(dir, name);
  const wrapper = path.join(root, 'node_modules/@foundry-rs/anvil');
  fs.mkdirSync(wrapper, { recursive: true });
  fs.writeFileSync(
    path.join(wrapper, 'package.json'),
    JSON.stringify({
      name: '@foundry-rs/anvil',
      bin: { anvil: './bin.mjs' },
      optionalDependencies: Object.fromEntries(platforms.map((p) => [p.name, '1.7.1'])),
    }),
  );
  for (const p of platforms) {
    const folder = path.join(root, 'node_modules', p.name);
    fs.mkdirSync(path.join(folder, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: p.name, os: p.os, cpu: p.cpu, bin: { anvil: p.bin ?? './bin/anvil' } }));
    if (p.file !== false) fs.writeFileSync(path.join(folder, 'bin/anvil'), '#!/bin/sh\n', { mode: 0o755 });
  }
  return pathToFileURL(path.join(root, 'index.js')).href;
}

describe('locateAnvil', () => {
  it("runs the binary the package of this platform declares in its manifest's bin, not a guessed path", () => {
    const from = project('fits', [
      { name: '@foundry-rs/anvil-other', os: ['sunos'], cpu: [process.arch] },
      { name: '@foundry-rs/anvil-here', os: [process.platform], cpu: [process.arch], bin: './bin/anvil' },
    ]);
    expect(locateAnvil({}, from)).toBe(path.join(dir, 'fits/node_modules/@foundry-rs/anvil-here/bin/anvil'));
  });

  it('finds the one installed beside svc (the optional dependency, npm ci on linux-x64)', () => {
    const found = locateAnvil({});
    expect(found).toMatch(/node_modules[\\/]@foundry-rs[\\/]anvil-[a-z0-9-]+[\\/]bin[\\/]anvil(\.exe)?$/);
    expect(fs.statSync(found).isFile()).toBe(true);
  });

  it('without the package: one line naming it', () => {
    fs.mkdirSync(path.join(dir, 'none'), { recursive: true });
    const error = (() => {
      try {
        locateAnvil({}, pathToFileURL(path.join(dir, 'none/index.js')).href);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AnvilMissing);
    expect((error as Error).message).toBe(
      '--chains runs anvil from the optional package @foundry-rs/anvil, which is not installed (npm install @foundry-rs/anvil)',
    );
    expect((error as Error).message).not.toContain('\n');
  });

  it('with the package but no binary for this platform (optional dependencies left out)', () => {
    const from = project('elsewhere', [{ name: '@foundry-rs/anvil-other', os: ['sunos'], cpu: ['mips'] }]);
    expect(() => locateAnvil({}, from)).toThrow(/@foundry-rs\/anvil, which is installed without its binary for /);
    const missingFile = project('no-file', [{ name: '@foundry-rs/anvil-here', os: [process.platform], cpu: [process.arch], file: false }]);
    expect(() => locateAnvil({}, missingFile)).toThrow(AnvilMissing);
  });

  it('SVC_ANVIL names the binary; one that is not there is the same one line', () => {
    const fake = path.join(dir, 'my-anvil');
    fs.writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 });
    expect(locateAnvil({ SVC_ANVIL: fake })).toBe(fake);
    expect(() => locateAnvil({ SVC_ANVIL: path.join(dir, 'missing') })).toThrow(
      `--chains runs anvil from the optional package @foundry-rs/anvil, and SVC_ANVIL=${path.join(dir, 'missing')} is not an executable file (npm install @foundry-rs/anvil)`,
    );
  });
});
