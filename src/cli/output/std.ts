import fs from 'node:fs';
import { isatty } from 'node:tty';
import { errorCode } from '../../domain/caught.js';

/**
 * The process's stdout and stderr, as the CLI uses them. Node builds `process.stdout` when it is
 * first read: over a pipe a net.Socket and its handle, ~0.6 ms of a start, and as much again for
 * stderr, which most commands spent to print one document and exit (bench #9, #12, #16). Here a
 * stream is made when something needs it as a stream (`stdStream`); before that, `printNow` writes
 * a command's one document, or `svc dev`'s ready line, with fs.writeSync, as Node writes to files
 * and terminals anyway. Whoever makes a stream gets it with the one 'error' handler below.
 */
const made: { 1?: NodeJS.WriteStream; 2?: NodeJS.WriteStream } = {};

/** The stream of `fd` (1 stdout, 2 stderr), made now if it was not. */
export function stdStream(fd: 1 | 2): NodeJS.WriteStream {
  let stream = made[fd];
  if (!stream) {
    stream = fd === 1 ? process.stdout : process.stderr;
    made[fd] = stream;
    // `svc … | head` closes our stdout early: that is the reader's choice, not a crash.
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') readerGone();
      throw error;
    });
  }
  return stream;
}

/** Whether `fd` is a terminal, without making its stream. */
export function stdIsTTY(fd: 1 | 2): boolean {
  const stream = made[fd];
  return stream ? stream.isTTY === true : isatty(fd);
}

/**
 * Writes `text` to `fd` now: through its stream once that is made (so that nothing overtakes what
 * the stream still holds), else with fs.writeSync, which on a pipe whose reader is slow waits as a
 * file write would. For what a command prints once; a long-running command's later lines go through
 * the stream (Node queues those in memory rather than wait on a reader that stopped reading).
 */
export function printNow(fd: 1 | 2, text: string, write: typeof fs.writeSync = fs.writeSync): void {
  const stream = made[fd];
  if (stream) {
    stream.write(text);
    return;
  }
  const bytes = Buffer.from(text);
  let at = 0;
  try {
    while (at < bytes.length) at += write(fd, bytes, at, bytes.length - at);
  } catch (error) {
    if (errorCode(error) === 'EPIPE') readerGone();
    // EAGAIN (a descriptor another process made non-blocking, its pipe full) or anything else: the
    // stream writes the rest, as it writes everything once made, and reports what it cannot.
    stdStream(fd).write(bytes.subarray(at));
  }
}

/** The reader closed the pipe: exit with the code so far (EXIT.ok, 0, when none was set). */
function readerGone(): never {
  process.exit(process.exitCode ?? 0);
}
