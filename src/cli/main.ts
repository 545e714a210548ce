import { CommanderError } from 'commander';
import { EXIT, renderError } from './output/render.js';
import { buildProgram } from './program.js';

/**
 * Runs `svc` with `argv` and sets the exit code (documented in the README): 0 success, 1 the service
 * refused or a user error, 2 usage error, 3 service unreachable. The only place that decides it.
 */
export async function main(argv: string[]): Promise<void> {
  // `svc … | head` closes our stdout early: that is the reader's choice, not a crash.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
      throw error;
    });
  }
  let code: number = EXIT.ok;
  const program = buildProgram({ setExitCode: (c) => (code = c) });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    // --help and --version "fail" with exit code 0; everything else commander throws is usage.
    if (error instanceof CommanderError) {
      code = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      // Scripts reading --json still get one JSON document on stdout (commander wrote to stderr).
      if (code !== EXIT.ok && argv.includes('--json')) {
        process.stdout.write(`${JSON.stringify({ error: { code: 'usage_error', message: error.message.replace(/^error: /, '') } }, null, 2)}\n`);
      }
    } else code = renderError(error, null);
  }
  process.exitCode = code;
}
