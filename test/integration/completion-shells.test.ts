/**
 * `svc completion <shell>` as the CLI prints it, run in the real shells: bash completes as readline
 * would, zsh and fish parse the scripts and fish completes too. What the scripts are generated from
 * (the text alone) is checked in test/unit/completion.test.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIGGER_EVENTS } from '../../src/cli/commands/top.js';
import { bashScript } from '../../src/cli/completion/bash.js';
import { fishScript } from '../../src/cli/completion/fish.js';
import { completionModel } from '../../src/cli/completion/model.js';
import { zshScript } from '../../src/cli/completion/zsh.js';
import type { LazyCommand } from '../../src/cli/spec.js';
import { runInProcess } from '../helpers/cli.js';

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

let dir: string;
let scripts: Record<'bash' | 'zsh' | 'fish', string>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-completion-'));
  fs.writeFileSync(path.join(dir, 'seed.yaml'), '');
  fs.writeFileSync(path.join(dir, 'seed.json'), '');
  scripts = { bash: '', zsh: '', fish: '' };
  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    const run = await runInProcess(['completion', shell]);
    expect(run.code).toBe(0);
    scripts[shell] = run.stdout;
    fs.writeFileSync(path.join(dir, `svc.${shell}`), run.stdout);
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What bash offers for `words` (the last one is being completed), by calling _svc as readline would. */
function bashComplete(...words: string[]): string[] {
  const line = words.join(' ');
  const script = [
    `source ${JSON.stringify(path.join(dir, 'svc.bash'))}`,
    `COMP_WORDS=(${words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    `COMP_LINE=${JSON.stringify(line)}`,
    `COMP_POINT=${line.length}`,
    '_svc',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const run = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { cwd: dir, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout.split('\n').filter(Boolean);
}

describe('svc completion bash (run in bash)', () => {
  it('offers the commands, then the subcommands of a group', () => {
    expect(bashComplete('svc', '')).toEqual([
      'dev',
      'exec',
      'init',
      'status',
      'open',
      'openapi',
      'trigger',
      'reset',
      'completion',
      'merchants',
      'invoices',
      'webhook',
      'time',
      'snapshot',
      'logs',
      'faults',
      'keys',
      'fixtures',
      'verify',
      'proxy',
      'chain',
    ]);
    expect(bashComplete('svc', 'in')).toEqual(['init', 'invoices']);
    expect(bashComplete('svc', 'chain', '')).toEqual(['list', 'mine', 'pay']);
    expect(bashComplete('svc', 'invoices', '')).toEqual(['create', 'get', 'list', 'pay', 'confirm', 'expire']);
    expect(bashComplete('svc', 'merchants', 'k')).toEqual(['keys']);
  });

  it('svc trigger <TAB> offers the event names', () => {
    expect(bashComplete('svc', 'trigger', '')).toEqual([...TRIGGER_EVENTS]);
    expect(bashComplete('svc', 'trigger', 'invoice.paid')).toEqual(['invoice.paid', 'invoice.paid_late']);
    expect(bashComplete('svc', 'trigger', 'invoice.paid', '')).toEqual([]); // one argument only
    expect(bashComplete('svc', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
  });

  it("offers a command's options and the global ones", () => {
    const offered = bashComplete('svc', 'invoices', 'create', '--');
    expect(offered).toEqual(
      expect.arrayContaining(['--amount', '--merchant', '--network-id', '--token', '--reference-id', '--idempotency-key', '--json', '--base-url', '--verbose']),
    );
    expect(offered).not.toContain('--unconfirmed'); // invoices pay's
    expect(bashComplete('svc', 'init', '--f')).toEqual(['--fixtures', '--force']);
  });

  it('offers the choices of an option, after a space or an =, and file names for file options', () => {
    expect(bashComplete('svc', 'invoices', 'list', '--status', '')).toEqual(['CREATED', 'CONFIRMING', 'PARTIALLY_PAID', 'PAID', 'EXPIRED']);
    // bash splits --status=PA at the = (COMP_WORDBREAKS).
    expect(bashComplete('svc', 'invoices', 'list', '--status', '=', 'PA')).toEqual(['PARTIALLY_PAID', 'PAID']);
    expect(bashComplete('svc', 'fixtures', 'apply', 'seed.').sort()).toEqual(['seed.json', 'seed.yaml']); // readline sorts them
    expect(bashComplete('svc', 'dev', '--fixtures', 'seed.y')).toEqual(['seed.yaml']);
    expect(bashComplete('svc', 'invoices', 'create', '--amount', '')).toEqual([]); // free text: nothing
  });

  it('skips global options and their values to find the command', () => {
    expect(bashComplete('svc', '--profile', 'ci', '--json', 'trigger', 'invoice.exp')).toEqual(['invoice.expired']);
    expect(bashComplete('svc', '--base-url', 'http://x', 'merchants', '')).toEqual(['create', 'get', 'list', 'keys']);
  });
});

describe('svc completion zsh and fish', () => {
  // zsh and fish are installed by `npm test` (scripts/ensure-test-tools.mjs) and .ci/run.
  it('zsh: the script parses (zsh -n)', () => {
    expect(has('zsh'), 'zsh is required: apt-get install -y zsh').toBe(true);
    const run = spawnSync('zsh', ['-n', path.join(dir, 'svc.zsh')], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('fish: the script parses, and `complete -C` offers what bash does', () => {
    expect(has('fish'), 'fish is required: apt-get install -y fish').toBe(true);
    const file = path.join(dir, 'svc.fish');
    expect(spawnSync('fish', ['-n', file]).status).toBe(0);
    const complete = (line: string) =>
      spawnSync('fish', ['--no-config', '-c', `source ${file}; complete -C ${JSON.stringify(line)}`], { cwd: dir, encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]);
    expect(complete('svc trigger invoice.paid')).toEqual(['invoice.paid', 'invoice.paid_late']);
    expect(complete('svc invoices ')).toEqual(expect.arrayContaining(['create', 'get', 'list', 'pay', 'confirm', 'expire']));
    expect(complete('svc --json invoices list --status P')).toEqual(['PAID', 'PARTIALLY_PAID']);
    expect(complete('svc init --f')).toEqual(['--fixtures', '--force']);
    expect(complete('svc trigger invoice.paid ')).toEqual([]);
  });
});

describe('generated from the command specs, run in the shells', () => {
  const spec: LazyCommand = {
    name: 'demo go',
    summary: "a demo's command",
    args: [{ name: 'colour', description: 'a colour', choices: ['red', 'green'] }],
    options: [{ flags: '-s, --size <size>', description: 'how big [really]', choices: ['small', 'large'] }],
    load: async () => async () => ({}),
  };
  const model = completionModel([spec]);

  it('a new command with options and choices gives scripts every shell parses', () => {
    for (const shell of ['bash', 'zsh', 'fish'] as const) {
      expect(has(shell), `${shell} is required`).toBe(true);
      const file = path.join(dir, `demo.${shell}`);
      fs.writeFileSync(file, { bash: bashScript, zsh: zshScript, fish: fishScript }[shell](model));
      const run = spawnSync(shell, ['-n', file], { encoding: 'utf8' });
      expect(run.stderr, shell).toBe('');
      expect(run.status, shell).toBe(0);
    }
  });

  it('`svc completion <shell>` prints what the generators make from the specs (checked as text by the unit tests)', () => {
    const model = completionModel();
    expect(scripts).toEqual({ bash: bashScript(model), zsh: zshScript(model), fish: fishScript(model) });
  });

  it('an unknown shell is a usage error', async () => {
    const run = await runInProcess(['completion', 'powershell']);
    expect(run.code).toBe(2);
  });
});
