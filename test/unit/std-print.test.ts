/**
 * printNow (src/cli/output/std.ts) writes a command's one document with fs.writeSync before stdout's
 * stream exists. A pipe another program left non-blocking answers EAGAIN once full, which a Node
 * parent cannot set up for its child (libuv makes a child's stdio blocking): here the write is
 * handed a descriptor that takes part of the bytes and then refuses, as such a pipe does.
 */
import type fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { printNow } from '../../src/cli/output/std.js';

const errno = (code: string) => Object.assign(new Error(code), { code });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('printNow', () => {
  it('writes what a partial write left, then gives the rest to the stream at EAGAIN, in order', () => {
    const written: Buffer[] = [];
    const streamed: Buffer[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      streamed.push(Buffer.from(chunk));
      return true;
    });
    let calls = 0;
    const write = ((_fd: number, buffer: Buffer, offset: number, length: number) => {
      calls++;
      if (calls === 3) throw errno('EAGAIN');
      const n = Math.min(length, 5);
      written.push(Buffer.from(buffer.subarray(offset, offset + n)));
      return n;
    }) as typeof fs.writeSync;
    const text = 'héllo, a document of some length\n';
    printNow(2, text, write);
    expect(calls).toBe(3);
    expect(Buffer.concat(written).length).toBe(10);
    expect(Buffer.concat([...written, ...streamed]).toString()).toBe(text);
    // Made now, the stream takes every later write (nothing overtakes what it holds).
    printNow(2, 'next\n', () => {
      throw new Error('not written directly once the stream is made');
    });
    expect(Buffer.concat(streamed).toString().endsWith('next\n')).toBe(true);
  });

  it('exits with the code so far when the reader is gone (EPIPE)', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      throw new Error(`exit ${code}`);
    }) as typeof process.exit);
    expect(() =>
      printNow(1, 'x\n', () => {
        throw errno('EPIPE');
      }),
    ).toThrow('exit 0');
    expect(exit).toHaveBeenCalledWith(0);
  });
});
