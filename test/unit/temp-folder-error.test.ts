/**
 * The error a snapshot in transit meets when the temporary folder cannot be made (issue 40: a
 * container's read-only /tmp answered 500 internal_error): one line naming the folder and the cause,
 * and what to do about it.
 */
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { TempFolderError } from '../../src/store/temp-folder.js';

describe('TempFolderError', () => {
  it('names a read-only file system, the folder and TMPDIR', () => {
    const error = new TempFolderError(
      '/tmp',
      Object.assign(new Error("EROFS: read-only file system, mkdtemp '/tmp/svc-snapshot-1-XXXXXX'"), { code: 'EROFS' }),
    );
    expect(error).toBeInstanceOf(UserError);
    expect(error.code).toBe('temporary_folder_unavailable');
    expect(error.message).toBe(
      'cannot make a temporary folder in /tmp (it is on a read-only file system), which a snapshot in transit needs; point TMPDIR at a writable folder',
    );
  });

  it('names any other cause by its code', () => {
    expect(new TempFolderError('/scratch', Object.assign(new Error('no space'), { code: 'ENOSPC' })).message).toContain('/scratch (ENOSPC)');
  });
});
