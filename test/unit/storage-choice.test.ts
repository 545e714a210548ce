import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { devOptionsFromEnv, mergeDevOptions } from '../../src/cli/commands/dev-env.js';
import { chooseStorage, describeStorage } from '../../src/cli/commands/storage.js';
import { UsageError } from '../../src/errors.js';

const cwd = '/work/shop';
const PG = 'postgres://svc:s3cret@db.internal:5432/sandbox';

describe('svc dev chooses its storage (CONTRACT §12)', () => {
  it('SQLite by default: the default file, the config file, --db, --memory', () => {
    expect(chooseStorage(cwd, {}, undefined)).toEqual({ kind: 'sqlite', file: path.join(cwd, '.svc/emulator.sqlite') });
    expect(chooseStorage(cwd, {}, 'state/db.sqlite')).toEqual({ kind: 'sqlite', file: path.join(cwd, 'state/db.sqlite') });
    expect(chooseStorage(cwd, { db: 'x.sqlite' }, PG)).toEqual({ kind: 'sqlite', file: path.join(cwd, 'x.sqlite') });
    expect(chooseStorage(cwd, { memory: true }, PG)).toEqual({ kind: 'sqlite', file: ':memory:' });
    expect(chooseStorage(cwd, {}, undefined, ':memory:')).toEqual({ kind: 'sqlite', file: ':memory:' });
  });

  it('PostgreSQL from --database or a postgres:// URL in the config file', () => {
    expect(chooseStorage(cwd, { database: PG }, undefined)).toEqual({ kind: 'postgres', url: PG });
    expect(chooseStorage(cwd, {}, 'postgresql://u@h/n')).toEqual({ kind: 'postgres', url: 'postgresql://u@h/n' });
  });

  it('--database takes only a PostgreSQL URL, and not together with --db or --memory: usage errors naming the flag', () => {
    for (const options of [{ database: 'state.sqlite' }, { database: PG, db: 'x.sqlite' }, { database: PG, memory: true }]) {
      let error: unknown;
      try {
        chooseStorage(cwd, options, undefined);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toContain('--database');
    }
  });

  it('shows a PostgreSQL URL without its password', () => {
    expect(describeStorage({ kind: 'postgres', url: PG })).toBe('postgres://svc@db.internal:5432/sandbox');
    expect(describeStorage({ kind: 'postgres', url: `${PG}?password=s3cret` })).not.toContain('s3cret');
  });

  it('SVC_DATABASE_URL sets it; any of --db, --memory, --database replaces all three variables', () => {
    const fromEnv = devOptionsFromEnv({ SVC_DATABASE_URL: PG, SVC_DB: 'env.sqlite' });
    expect(fromEnv).toEqual({ database: PG, db: 'env.sqlite' });
    expect(mergeDevOptions(fromEnv, { memory: true })).toEqual({ memory: true });
    expect(mergeDevOptions(devOptionsFromEnv({ SVC_MEMORY: '1' }), { database: PG })).toEqual({ database: PG });
    expect(chooseStorage(cwd, mergeDevOptions(devOptionsFromEnv({ SVC_DATABASE_URL: PG }), {}), undefined)).toEqual({ kind: 'postgres', url: PG });
  });
});
