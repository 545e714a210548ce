import type { Context } from '../context.js';

/**
 * Runs `work` with an ora spinner on stderr, shown only on a TTY in human mode and only if the work
 * takes longer than a moment (150 ms), so quick commands do not flicker.
 */
export async function withSpinner<T>(ctx: Context, text: string, work: Promise<T>): Promise<T> {
  const tty = 'isTTY' in ctx.stderr && ctx.stderr.isTTY === true;
  if (!tty || ctx.json || ctx.quiet) return work;
  let spinner: { stop(): void } | undefined;
  let done = false;
  const timer = setTimeout(() => {
    void import('ora').then(({ default: ora }) => {
      if (!done) spinner = ora({ text, stream: ctx.stderr }).start();
    });
  }, 150);
  try {
    return await work;
  } finally {
    done = true;
    clearTimeout(timer);
    spinner?.stop();
  }
}
