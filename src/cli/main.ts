import { CommanderError } from 'commander';
import { UserError } from '../errors.js';
import { buildProgram } from './program.js';

/**
 * Exit codes (documented in the README): 0 success, 1 the service refused or a user error,
 * 2 usage error, 3 service unreachable. This is the only place that exits.
 */
export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

export async function main(argv: string[]): Promise<void> {
  let code: number = EXIT.ok;
  const program = buildProgram((c) => (code = c));
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    code = exitCodeOf(error);
  }
  process.exitCode = code;
}

function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) {
    // --help and --version "fail" with exit code 0; everything else commander throws is usage.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof UserError) {
    process.stderr.write(`error: ${error.message}\n${error.hint ? `${error.hint}\n` : ''}`);
    return EXIT.refused;
  }
  process.stderr.write(`unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
  return EXIT.usage;
}
