import { describe, expect, it } from 'vitest';
import { devOptionsFromEnv, mergeDevOptions } from '../../src/cli/commands/dev-env.js';

describe('svc dev options from SVC_* variables', () => {
  it('reads every option, typed as its flag is', () => {
    expect(
      devOptionsFromEnv({
        SVC_PORT: '4747',
        SVC_HOST: '0.0.0.0',
        SVC_DB: '/data/emulator.sqlite',
        SVC_MEMORY: 'true',
        SVC_RESET: '0',
        SVC_FIXTURES: '/fixtures.yaml',
        SVC_SNAPSHOT: '/snap.sqlite',
        SVC_SEED: '7',
        SVC_CLOCK_START: '2030-01-01T00:00:00Z',
        SVC_EXPOSE_CONTROL_PLANE: 'yes',
        SVC_CONTROL_TOKEN: 'tok-0123456789abcdef',
        SVC_PUBLIC_URL: 'http://svc:4747',
        SVC_ALLOWED_HOSTS: 'svc, app ,,.box.test',
      }),
    ).toEqual({
      port: 4747,
      host: '0.0.0.0',
      db: '/data/emulator.sqlite',
      memory: true,
      reset: false,
      fixtures: '/fixtures.yaml',
      snapshot: '/snap.sqlite',
      seed: 7,
      clockStart: '2030-01-01T00:00:00Z',
      exposeControlPlane: true,
      controlToken: 'tok-0123456789abcdef',
      publicUrl: 'http://svc:4747',
      allowedHost: ['svc', 'app', '.box.test'],
    });
  });

  it('an unset or empty variable sets nothing', () => {
    expect(devOptionsFromEnv({ SVC_PORT: '', SVC_HOST: '  ', PATH: '/bin' })).toEqual({});
  });

  it('a bad value is a usage error naming the variable', () => {
    expect(() => devOptionsFromEnv({ SVC_PORT: '47a' })).toThrow(/SVC_PORT must be a whole number, not "47a"/);
    expect(() => devOptionsFromEnv({ SVC_SEED: '-1' })).toThrow(/SVC_SEED/);
    expect(() => devOptionsFromEnv({ SVC_MEMORY: 'maybe' })).toThrow(/SVC_MEMORY must be 1 or 0/);
  });

  it('flags win over the environment; --allowed-host adds to SVC_ALLOWED_HOSTS; --db and --memory replace both variables', () => {
    const env = devOptionsFromEnv({ SVC_PORT: '4747', SVC_DB: '/data/e.sqlite', SVC_SEED: '1', SVC_ALLOWED_HOSTS: 'svc' });
    expect(mergeDevOptions(env, { port: 0, allowedHost: ['app'] })).toEqual({ port: 0, db: '/data/e.sqlite', seed: 1, allowedHost: ['svc', 'app'] });
    expect(mergeDevOptions(env, { memory: true })).toEqual({ port: 4747, memory: true, seed: 1, allowedHost: ['svc'] });
    expect(mergeDevOptions(devOptionsFromEnv({ SVC_MEMORY: '1' }), { db: 'x.sqlite' })).toEqual({ db: 'x.sqlite' });
  });
});
