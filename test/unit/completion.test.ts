/**
 * The completion scripts as text, generated from the command specs (pure: no shell runs here; the
 * scripts are run in bash, zsh and fish by test/integration/completion-shells.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { TRIGGER_EVENTS } from '../../src/cli/commands/top.js';
import { ALL_COMMANDS } from '../../src/cli/commands/index.js';
import { bashScript } from '../../src/cli/completion/bash.js';
import { fishScript } from '../../src/cli/completion/fish.js';
import { completionModel } from '../../src/cli/completion/model.js';
import { zshScript } from '../../src/cli/completion/zsh.js';
import type { LazyCommand } from '../../src/cli/spec.js';

describe('svc completion zsh and fish', () => {
  const model = completionModel();
  const scripts = { zsh: zshScript(model), fish: fishScript(model) };

  it('both hold every command, subcommand and option', () => {
    for (const spec of ALL_COMMANDS) {
      const words = spec.name.split(' ');
      for (const word of words) {
        expect(scripts.zsh).toContain(`'${word}'`);
        expect(scripts.fish).toContain(`-a '${word}'`);
      }
      for (const option of model.commands.get(spec.name)!.options) {
        for (const name of option.names) {
          expect(scripts.zsh, `${spec.name} ${name}`).toContain(name);
          expect(scripts.fish, `${spec.name} ${name}`).toContain(name.startsWith('--') ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`);
        }
      }
    }
    expect(scripts.zsh.startsWith('#compdef svc\n')).toBe(true);
    expect(scripts.zsh).toContain(`:event - the event to emit:(${TRIGGER_EVENTS.join(' ')})`);
    expect(scripts.fish).toContain(`complete -c svc -n '__svc_is \\'trigger\\' 0' -a '${TRIGGER_EVENTS.join(' ')}'`);
  });
});

describe('generated from the command specs', () => {
  const spec: LazyCommand = {
    name: 'demo go',
    summary: "a demo's command",
    args: [{ name: 'colour', description: 'a colour', choices: ['red', 'green'] }],
    options: [{ flags: '-s, --size <size>', description: 'how big [really]', choices: ['small', 'large'] }],
    load: async () => async () => ({}),
  };
  const model = completionModel([spec]);

  it('a new command, option or choice appears in every script', () => {
    expect(bashScript(model)).toContain("'demo go|-s'|'demo go|--size') echo 'small large'");
    expect(bashScript(model)).toContain("'demo go|1') echo 'red green'");
    expect(zshScript(model)).toContain("'(-s --size)'{-s,--size}'[how big (really)]:size:(small large)'");
    expect(fishScript(model)).toContain("-s s -l size -x -a 'small large'");
  });
});
