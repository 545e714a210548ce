import { describe, expect, it } from 'vitest';
import { compileCacheDir, unsupportedNode } from '../../src/runtime.js';

describe('unsupportedNode (CONTRACT §11)', () => {
  it.each(['22.12.0', '22.23.3', '23.0.0', '24.21.0', '26.10.0', '30.1.0'])('%s runs svc', (v) => expect(unsupportedNode(v)).toBeNull());
  it.each(['20.20.2', '22.11.0', '21.7.3', '18.20.0', '0.12.18'])('%s gets one line naming both versions', (v) =>
    expect(unsupportedNode(v)).toBe(`svc needs Node.js 22.12 or newer (22, 24 or 26); this is Node.js ${v}.`),
  );
});

describe('compileCacheDir', () => {
  it('follows XDG_CACHE_HOME, then ~/.cache, on Linux', () => {
    expect(compileCacheDir({ HOME: '/h', XDG_CACHE_HOME: '/x' }, 'linux')).toBe('/x/svc/compile-cache');
    expect(compileCacheDir({ HOME: '/h' }, 'linux')).toBe('/h/.cache/svc/compile-cache');
  });
  it("uses macOS's Caches folder", () => expect(compileCacheDir({ HOME: '/Users/u' }, 'darwin')).toBe('/Users/u/Library/Caches/svc/compile-cache'));
  it('leaves NODE_COMPILE_CACHE to Node', () => expect(compileCacheDir({ HOME: '/h', NODE_COMPILE_CACHE: '/c' }, 'linux')).toBeUndefined());
});
