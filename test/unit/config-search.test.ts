/**
 * Where the config is searched (CONTRACT §8 "Config files"): from the current folder up to the
 * project root (the nearest folder with `package.json` or `.git`), never above it; outside any
 * project only the current folder; then the user's own config folder. The same for the profiles
 * the other commands read. A config above the root must not even be loaded: it could run code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findConfig, projectFolders } from '../../src/config/find.js';
import { loadConfig } from '../../src/config/load.js';
import { loadProfiles } from '../../src/config/profiles.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = tempDir('svc-config-search-');
const freshDir = (): string => fs.mkdtempSync(path.join(root, 'case-'));
const userConfigHome = path.join(root, 'xdg');
let savedXdg: string | undefined;

// Before each test: the isolation setup (test/helpers/isolation.ts) gives every test a config folder of
// its own in its beforeEach, which runs after a beforeAll of this file.
beforeEach(() => {
  savedXdg = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = userConfigHome;
});
afterEach(() => {
  if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedXdg;
});

function write(file: string, content: string | object): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** A `svc.config.mjs` that leaves a trace when it is loaded (run), and would expose the server. */
function trap(dir: string): string {
  const marker = path.join(dir, 'ran.txt');
  write(
    path.join(dir, 'svc.config.mjs'),
    `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(marker)}, 'ran');\nexport default { host: '0.0.0.0', exposeControlPlane: true };\n`,
  );
  return marker;
}

describe('the search stops at the project root', () => {
  it('a config in a folder above package.json is neither loaded nor run', async () => {
    const outer = freshDir();
    const marker = trap(outer);
    const project = path.join(outer, 'shop');
    write(path.join(project, 'package.json'), { name: 'shop' });
    const cwd = path.join(project, 'src', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    const loaded = await loadConfig({ cwd });
    expect(loaded).toEqual({ file: {}, filepath: null, warnings: [] });
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('.git marks the project root as well', async () => {
    const outer = freshDir();
    const marker = trap(outer);
    const project = path.join(outer, 'repo');
    fs.mkdirSync(path.join(project, '.git'), { recursive: true });
    const file = write(path.join(project, '.svcrc.json'), { port: 5101 });
    const cwd = path.join(project, 'deep', 'er');
    fs.mkdirSync(cwd, { recursive: true });
    const loaded = await loadConfig({ cwd });
    expect(loaded.filepath).toBe(file);
    expect(loaded.file).toEqual({ port: 5101 });
    expect(fs.existsSync(marker)).toBe(false);
    expect(projectFolders(cwd)).toEqual([cwd, path.join(project, 'deep'), project]);
  });

  it('outside any project only the current folder is searched', async () => {
    const outer = freshDir();
    const marker = trap(outer);
    const cwd = path.join(outer, 'scratch');
    fs.mkdirSync(cwd);
    expect((await loadConfig({ cwd })).filepath).toBeNull();
    expect(fs.existsSync(marker)).toBe(false);
    const own = write(path.join(cwd, 'svc.config.json'), { port: 5102 });
    expect((await loadConfig({ cwd })).filepath).toBe(own);
  });

  it('--config names a file anywhere, above the root included', async () => {
    const outer = freshDir();
    const file = write(path.join(outer, 'ci', 'emulator.json'), { port: 5103 });
    const project = path.join(outer, 'shop');
    write(path.join(project, 'package.json'), { name: 'shop' });
    const loaded = await loadConfig({ cwd: project, explicitPath: '../ci/emulator.json' });
    expect(loaded.filepath).toBe(file);
    expect(loaded.file.port).toBe(5103);
  });

  it('the profiles of the other commands follow the same boundary', async () => {
    const outer = freshDir();
    write(path.join(outer, 'svc.config.json'), { profiles: { staging: { baseUrl: 'https://attacker.example' } }, defaultProfile: 'staging' });
    const project = path.join(outer, 'shop');
    write(path.join(project, 'package.json'), { name: 'shop' });
    expect(await loadProfiles(project)).toEqual({ profiles: {}, defaultProfile: undefined, filepath: null });
    const own = write(path.join(project, 'svc.config.json'), { profiles: { local: { baseUrl: 'http://127.0.0.1:4747' } } });
    const loaded = await loadProfiles(project);
    expect(loaded.filepath).toBe(own);
    expect(loaded.profiles).toEqual({ local: { baseUrl: 'http://127.0.0.1:4747' } });
  });
});

describe("the user's own config folder", () => {
  it('is read when the project has no config, and the project config wins over it', async () => {
    const userFile = write(path.join(userConfigHome, 'svc', 'config.json'), { port: 5104 });
    try {
      const project = freshDir();
      write(path.join(project, 'package.json'), { name: 'shop' });
      expect((await loadConfig({ cwd: project })).filepath).toBe(userFile);
      const own = write(path.join(project, 'svc.config.yaml'), 'port: 5105\n');
      const loaded = await findConfig(project);
      expect(loaded.found?.filepath).toBe(own);
    } finally {
      fs.rmSync(path.join(userConfigHome, 'svc'), { recursive: true, force: true });
    }
  });
});
