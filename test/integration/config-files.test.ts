/**
 * The config loader on real files (src/config/load.ts): cosmiconfig's search in temp folders (and
 * upwards from them), an explicit path, and the errors and warnings a found file gives. The pure
 * part (validation, the merge over the defaults) is in test/unit/config.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { loadConfig, resolveConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp-dir.js';

// One temp root for the file (tempDir cleans up after the file); a fresh folder in it per test.
const root = tempDir('svc-config-');
const freshDir = (): string => fs.mkdtempSync(path.join(root, 'case-'));

function write(dir: string, name: string, content: string | object): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

describe('loadConfig: cosmiconfig search on real files', () => {
  it('finds svc.config.json', async () => {
    const dir = freshDir();
    const file = write(dir, 'svc.config.json', { port: 5001, invoiceLifetime: '15m' });
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.filepath).toBe(file);
    expect(loaded.file).toEqual({ port: 5001, invoiceLifetime: 900_000 });
    expect(loaded.warnings).toEqual([]);
    expect(resolveConfig(loaded.file).invoiceLifetimeSeconds).toBe(900);
  });

  it('finds svc.config.yaml', async () => {
    const dir = freshDir();
    const file = write(dir, 'svc.config.yaml', 'port: 5002\nchains:\n  test: [84532, 103]\nwebhooks:\n  retrySchedule: [90s, 15m, 2]\n');
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.filepath).toBe(file);
    expect(loaded.file.port).toBe(5002);
    expect(loaded.file.chains).toEqual({ test: [84532, 103] });
    expect(resolveConfig(loaded.file).webhooks.retrySchedule).toEqual([90, 900, 2]);
  });

  it('finds .svcrc (YAML or JSON without an extension)', async () => {
    const yamlDir = freshDir();
    const yamlFile = write(yamlDir, '.svcrc', 'port: 5003\nexposeControlPlane: true\n');
    const yaml = await loadConfig({ cwd: yamlDir });
    expect(yaml.filepath).toBe(yamlFile);
    expect(yaml.file).toEqual({ port: 5003, exposeControlPlane: true });

    const jsonDir = freshDir();
    write(jsonDir, '.svcrc', '{"port": 5004}');
    expect((await loadConfig({ cwd: jsonDir })).file).toEqual({ port: 5004 });
  });

  it('finds the svc key of package.json', async () => {
    const dir = freshDir();
    const file = write(dir, 'package.json', { name: 'shop', version: '1.0.0', svc: { port: 5005, invoiceLifetime: '90s' } });
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.filepath).toBe(file);
    expect(loaded.file).toEqual({ port: 5005, invoiceLifetime: 90_000 });
  });

  it('skips a package.json without an svc key and keeps looking', async () => {
    const dir = freshDir();
    write(dir, 'package.json', { name: 'shop', version: '1.0.0' });
    const file = write(dir, 'svc.config.json', { port: 5006 });
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.filepath).toBe(file);
    expect(loaded.file).toEqual({ port: 5006 });
  });

  it('searches upwards from a subfolder, up to the project root', async () => {
    const dir = freshDir();
    write(dir, 'package.json', { name: 'shop' });
    const file = write(dir, 'svc.config.json', { port: 5007 });
    const sub = path.join(dir, 'packages', 'api');
    fs.mkdirSync(sub, { recursive: true });
    const loaded = await loadConfig({ cwd: sub });
    expect(loaded.filepath).toBe(file);
    expect(loaded.file.port).toBe(5007);
  });

  it('returns warnings for unknown keys in a found file, naming the file', async () => {
    const dir = freshDir();
    write(dir, 'svc.config.json', { prot: 1, port: 5008 });
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.file).toEqual({ port: 5008 });
    expect(loaded.warnings).toHaveLength(1);
    expect(loaded.warnings[0]).toMatch(/svc\.config\.json: prot: unknown setting, ignored$/);
  });

  it('an invalid found file is a ConfigError naming the file and the field', async () => {
    const dir = freshDir();
    write(dir, 'svc.config.yaml', 'chains:\n  test: [84532, 5]\n');
    const error = await loadConfig({ cwd: dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/svc\.config\.yaml:2: chains\.test\[1\]: unknown test networkId 5 /);
    expect((error as ConfigError).field).toBe('chains.test[1]');
  });

  it('a file that is not valid JSON is a ConfigError', async () => {
    const dir = freshDir();
    write(dir, 'svc.config.json', '{"port": ');
    await expect(loadConfig({ cwd: dir })).rejects.toBeInstanceOf(ConfigError);
  });

  it('with no file: the empty config, no path, no warnings, and the defaults', async () => {
    const dir = freshDir();
    const sub = path.join(dir, 'empty');
    fs.mkdirSync(sub);
    const loaded = await loadConfig({ cwd: sub });
    expect(loaded).toEqual({ file: {}, filepath: null, warnings: [] });
    expect(resolveConfig(loaded.file)).toEqual(defaultConfig());
  });

  it('an empty file is the empty config', async () => {
    const dir = freshDir();
    write(dir, 'svc.config.yaml', '');
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.file).toEqual({});
    expect(loaded.warnings).toEqual([]);
  });
});

describe('loadConfig: an explicit path', () => {
  it('is loaded, relative to cwd, even with a name cosmiconfig would not search for', async () => {
    const dir = freshDir();
    write(dir, 'svc.config.json', { port: 1111 }); // ignored: the explicit path wins
    const file = write(dir, 'ci/emulator-settings.json', { port: 6001, webhooks: { retrySchedule: ['1s', '2s'] } });
    const loaded = await loadConfig({ cwd: dir, explicitPath: 'ci/emulator-settings.json' });
    expect(loaded.filepath).toBe(file);
    expect(loaded.file.port).toBe(6001);
    expect(resolveConfig(loaded.file).webhooks.retrySchedule).toEqual([1, 2]);
  });

  it('may be absolute, and YAML', async () => {
    const dir = freshDir();
    const file = write(dir, 'settings.yaml', 'host: 0.0.0.0\n');
    const loaded = await loadConfig({ cwd: process.cwd(), explicitPath: file });
    expect(loaded.filepath).toBe(file);
    expect(loaded.file).toEqual({ host: '0.0.0.0' });
  });

  it('a missing explicit file is a ConfigError naming it', async () => {
    const dir = freshDir();
    const error = await loadConfig({ cwd: dir, explicitPath: 'nope/svc.json' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('nope/svc.json');
  });

  it('an invalid explicit file names the file and the field', async () => {
    const dir = freshDir();
    write(dir, 'bad.json', { webhooks: { timeout: '5m' } });
    const error = await loadConfig({ cwd: dir, explicitPath: 'bad.json' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/bad\.json:\d+: webhooks\.timeout: must be between 100ms and 60s$/);
  });
});
