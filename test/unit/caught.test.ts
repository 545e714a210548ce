import { describe, expect, it } from 'vitest';
import { errorCause, errorCode, errorMessage, errorProperty, errorString, isErrnoException, toError } from '../../src/domain/caught.js';

describe('caught errors, narrowed by looking', () => {
  const enoent = Object.assign(new Error('no such file'), { code: 'ENOENT', syscall: 'open', port: 443 });

  it('reads a string code, and nothing else as one', () => {
    expect(errorCode(enoent)).toBe('ENOENT');
    expect(errorCode({ code: 'SQLITE_BUSY' })).toBe('SQLITE_BUSY');
    expect(errorCode({ code: 5 })).toBeUndefined();
    expect(errorCode(null)).toBeUndefined();
    expect(errorCode('ENOENT')).toBeUndefined();
  });

  it('gives a message for anything thrown', () => {
    expect(errorMessage(enoent)).toBe('no such file');
    expect(errorMessage('plain string')).toBe('plain string');
    expect(errorMessage(undefined)).toBe('undefined');
    expect(errorMessage({ message: 42 })).toBe('[object Object]');
  });

  it('tells errno errors by code', () => {
    expect(isErrnoException(enoent)).toBe(true);
    expect(isErrnoException(enoent, 'ENOENT')).toBe(true);
    expect(isErrnoException(enoent, 'EEXIST')).toBe(false);
    expect(isErrnoException({ code: 'ENOENT' }, 'ENOENT')).toBe(false); // not an Error
    expect(isErrnoException(new Error('x'))).toBe(false);
  });

  it('reads properties without trusting their type', () => {
    expect(errorString(enoent, 'syscall')).toBe('open');
    expect(errorString(enoent, 'port')).toBeUndefined();
    expect(errorProperty(enoent, 'port')).toBe(443);
    expect(errorProperty(7, 'port')).toBeUndefined();
    expect(errorCause(new Error('outer', { cause: enoent }))).toBe(enoent);
    expect(errorCause('x')).toBeUndefined();
  });

  it('wraps a non-Error, keeping it as the cause', () => {
    expect(toError(enoent)).toBe(enoent);
    const wrapped = toError({ weird: true });
    expect(wrapped).toBeInstanceOf(Error);
    expect(wrapped.cause).toEqual({ weird: true });
  });
});
