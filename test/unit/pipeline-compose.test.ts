import { describe, expect, it } from 'vitest';
import { compose, type Stage } from '../../src/server/pipeline/compose.js';

describe('compose (the request pipeline’s stages)', () => {
  it('runs stages in order, and the code after `await next()` in reverse', async () => {
    const seen: string[] = [];
    const stage =
      (name: string): Stage<string[]> =>
      async (log, next) => {
        log.push(`${name} in`);
        await next();
        log.push(`${name} out`);
      };
    await compose([stage('a'), stage('b'), stage('c')])(seen);
    expect(seen).toEqual(['a in', 'b in', 'c in', 'c out', 'b out', 'a out']);
  });

  it('a stage that does not call next ends the run there', async () => {
    const seen: string[] = [];
    await compose<string[]>([(log) => void log.push('answered'), (log) => void log.push('never')])(seen);
    expect(seen).toEqual(['answered']);
  });

  it('synchronous stages stay synchronous: no promise, and a throw reaches the caller at once', () => {
    const pass: Stage<number[]> = (log, next) => {
      log.push(1);
      return next();
    };
    const log: number[] = [];
    expect(compose([pass, pass])(log)).toBeUndefined();
    expect(log).toEqual([1, 1]);
    const refuse: Stage<number[]> = () => {
      throw new Error('refused');
    };
    expect(() => compose([pass, refuse, pass])([])).toThrow('refused');
  });
});
