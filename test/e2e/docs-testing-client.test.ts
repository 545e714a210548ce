import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * docs/testing.md's "Using the emulator from your own tests" example, run as written: compiled from
 * the doc's TypeScript and run in a project where `svc-emulator` is this checkout's build.
 */
/** The TypeScript block between a doc's markers, compiled and run; `svc-emulator` is this checkout. */
function runExample(file: string, marker: string) {
  const doc = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const section = doc.slice(doc.indexOf(`<!-- ${marker}:start -->`), doc.indexOf(`<!-- ${marker}:end -->`));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(code, `${file} needs the ${marker} block`).toBeTruthy();
  const dir = tempDir('svc-doc-client-');
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'svc-emulator'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const js = ts.transpileModule(code!, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
  fs.writeFileSync(path.join(dir, 'example.js'), js);
  return { code: code!, ...spawnSync(process.execPath, ['example.js'], { cwd: dir, encoding: 'utf8', timeout: 30_000 }) };
}

it("the README's in-process example runs as written", () => {
  const r = runExample('README.md', 'readme-inprocess');
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
});

it("docs/testing.md's typed-client example runs as written and prints what its comments say", () => {
  const r = runExample('docs/testing.md', 'testing-client');
  const code = r.code;
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  // Each console.log of the example prints what its comment says.
  const expected = [...code!.matchAll(/console\.log\(.*\); \/\/ (\S+)/g)].map((m) => m[1]);
  expect(expected).toEqual(['PAID', 'invoice_not_found']);
  expect(r.stdout.trim().split('\n')).toEqual(expected);
});
