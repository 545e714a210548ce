import { bashScript } from '../completion/bash.js';
import { fishScript } from '../completion/fish.js';
import { zshScript } from '../completion/zsh.js';
import { completionModel } from '../completion/model.js';
import { UsageError } from '../../errors.js';
import type { Handler } from '../spec.js';

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

/**
 * `svc completion bash|zsh|fish`: the script, generated from the command specs. It is printed as is
 * with or without --json (a script is the only useful output; `--json` would only wrap it).
 */
export const completionCommand: Handler = async ({ args }, ctx) => {
  const shell = args.shell as keyof typeof SCRIPTS | undefined;
  const generate = shell ? SCRIPTS[shell] : undefined;
  if (!generate) throw new UsageError(`unknown shell "${String(shell)}": use bash, zsh or fish`, 'shell');
  ctx.stdout.write(generate(completionModel()));
  return { streamed: true };
};
