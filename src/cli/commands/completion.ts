import { bashScript } from '../completion/bash.js';
import { fishScript } from '../completion/fish.js';
import { zshScript } from '../completion/zsh.js';
import { completionModel } from '../completion/model.js';
import type { Handler } from '../spec.js';
import type { completionSpec } from './top.js';

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript };

/**
 * `svc completion bash|zsh|fish`: the script, generated from the command specs. It is printed as is
 * with or without --json (a script is the only useful output; `--json` would only wrap it).
 */
export const completionCommand: Handler<typeof completionSpec> = async ({ args }, ctx) => {
  ctx.stdout.write(SCRIPTS[args.shell](completionModel()));
  return { streamed: true };
};
