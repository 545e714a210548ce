/**
 * The config loader's pure part (src/config/load.ts): validation whose errors name the file and the
 * field, unknown keys as warnings, and the merge of the file over the defaults. The search over real
 * files is in test/integration/config-files.test.ts.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig, STANDARD_RETRY_SCHEDULE } from '../../src/config/defaults.js';
import { resolveConfig } from '../../src/config/load.js';
import { validateConfig } from '../../src/config/validate.js';
import { generateKey } from '../../src/domain/keys.js';
import { ConfigError, UserError } from '../../src/errors.js';

const FILE = 'svc.config.json';

/** The ConfigError `validateConfig` throws for `raw`; fails the test when it does not throw one. */
function configError(raw: unknown, filepath = FILE): ConfigError {
  try {
    validateConfig(raw, filepath);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`);
}

describe('validateConfig: errors name the file and the field', () => {
  it('an unknown test networkId', () => {
    const error = configError({ chains: { test: [84532, 5] } });
    expect(error.message).toMatch(/^svc\.config\.json: chains\.test\[1\]: unknown test networkId 5 /);
    expect(error.message).toContain('84532'); // lists the known ones
    expect(error.file).toBe('svc.config.json');
    expect(error.field).toBe('chains.test[1]');
    expect(error.code).toBe('config_invalid');
    expect(error).toBeInstanceOf(UserError);
  });

  it('a test networkId among the live chains', () => {
    expect(configError({ chains: { live: [1, 84532] } }).message).toMatch(/^svc\.config\.json: chains\.live\[1\]: unknown live networkId 84532/);
  });

  it('chains that are neither "all" nor a list', () => {
    expect(configError({ chains: { test: 'some' } }).field).toBe('chains.test');
    expect(configError({ chains: { test: [84532.5] } }).field).toMatch(/^chains\.test/);
  });

  it.each([
    [{ invoiceLifetime: 'abc' }, 'invoiceLifetime', /"abc" is not a duration/],
    [{ invoiceLifetime: '10 minutes' }, 'invoiceLifetime', /is not a duration/],
    [{ invoiceLifetime: -5 }, 'invoiceLifetime', /-5 is not a duration/],
    [{ invoiceLifetime: '0s' }, 'invoiceLifetime', /at least 1 second/],
    [{ invoiceLifetime: '500ms' }, 'invoiceLifetime', /at least 1 second/],
    [{ invoiceLifetime: true }, 'invoiceLifetime', /./],
    [{ webhooks: { retrySchedule: ['5s', 'soon'] } }, 'webhooks.retrySchedule[1]', /"soon" is not a duration/],
    [{ webhooks: { retrySchedule: ['5s', '5m', '0s'] } }, 'webhooks.retrySchedule[2]', /at least 1 second/],
    [{ webhooks: { retrySchedule: '5s' } }, 'webhooks.retrySchedule', /./],
    [{ webhooks: { timeout: '2m' } }, 'webhooks.timeout', /between 100ms and 60s/],
    [{ webhooks: { timeout: '50ms' } }, 'webhooks.timeout', /between 100ms and 60s/],
  ])('a bad duration: %j', (raw, field, detail) => {
    const error = configError(raw);
    expect(error.field).toBe(field);
    expect(error.message.startsWith(`svc.config.json: ${field}: `)).toBe(true);
    expect(error.message).toMatch(detail);
  });

  it('more than 20 retries', () => {
    expect(configError({ webhooks: { retrySchedule: Array.from({ length: 21 }, () => '1s') } }).field).toBe('webhooks.retrySchedule');
  });

  it.each([
    [
      'a merchant key where the test partner key belongs',
      { test: { partnerKey: generateKey('merchant', 'test') } },
      'keys.test.partnerKey',
      /test partner key/,
    ],
    [
      'a partner key where the test merchant key belongs',
      { test: { merchantKey: generateKey('partner', 'test') } },
      'keys.test.merchantKey',
      /test merchant key/,
    ],
    ['a test partner key among the live keys', { live: { partnerKey: generateKey('partner', 'test') } }, 'keys.live.partnerKey', /live partner key/],
    ['a live merchant key among the test keys', { test: { merchantKey: generateKey('merchant', 'live') } }, 'keys.test.merchantKey', /test merchant key/],
    ['a key with 31 characters after the prefix', { live: { merchantKey: `live_${'a'.repeat(31)}` } }, 'keys.live.merchantKey', /32 letters and digits/],
    ['a key with a character outside base62', { test: { partnerKey: `pt_test_${'a'.repeat(31)}-` } }, 'keys.test.partnerKey', /pt_test_/],
  ])('%s', (_name, keys, field, detail) => {
    const error = configError({ keys });
    expect(error.field).toBe(field);
    expect(error.message.startsWith(`svc.config.json: ${field}: `)).toBe(true);
    expect(error.message).toMatch(detail);
  });

  it.each([
    [{ port: '4747' }, 'port'],
    [{ port: 70000 }, 'port'],
    [{ port: 1.5 }, 'port'],
    [{ host: '' }, 'host'],
    [{ database: 3 }, 'database'],
    [{ exposeControlPlane: 'yes' }, 'exposeControlPlane'],
    [{ controlToken: 'short' }, 'controlToken'],
    [{ publicUrl: 'svc:4747' }, 'publicUrl'],
    [{ profiles: { ci: { baseUrl: 'ftp://example.com' } } }, 'profiles.ci.baseUrl'],
  ])('a wrong type or range: %j', (raw, field) => {
    const error = configError(raw);
    expect(error.field).toBe(field);
    expect(error.message.startsWith(`svc.config.json: ${field}: `)).toBe(true);
  });

  it.each([[[]], ['port: 1'], [null], [42]])('a config that is not an object (%j) names the file', (raw) => {
    const error = configError(raw);
    expect(error.field).toBe('');
    expect(error.message).toMatch(/^svc\.config\.json: \S/);
  });

  it('shows the file relative to the working directory', () => {
    const error = configError({ port: 'x' }, path.join(process.cwd(), 'conf', 'svc.config.yaml'));
    expect(error.message.startsWith(`${path.join('conf', 'svc.config.yaml')}: port: `)).toBe(true);
  });
});

describe('validateConfig: unknown keys are warnings', () => {
  it('names each unknown key by its path and keeps the known settings', () => {
    const { file, warnings } = validateConfig(
      {
        prot: 4000,
        port: 4001,
        webhooks: { retries: 3, timeout: '5s' },
        keys: { test: { secretKey: 'x' } },
        chains: { devnet: 'all' },
        profiles: { ci: { baseUrl: 'http://127.0.0.1:4747', extra: true } },
      },
      FILE,
    );
    expect(warnings.sort()).toEqual(
      [
        'svc.config.json: prot: unknown setting, ignored',
        'svc.config.json: webhooks.retries: unknown setting, ignored',
        'svc.config.json: keys.test.secretKey: unknown setting, ignored',
        'svc.config.json: chains.devnet: unknown setting, ignored',
        'svc.config.json: profiles.ci.extra: unknown setting, ignored',
      ].sort(),
    );
    expect(file.port).toBe(4001);
    expect(file.webhooks?.timeout).toBe(5000);
    expect(file).not.toHaveProperty('prot');
    expect(file.profiles?.ci).toEqual({ baseUrl: 'http://127.0.0.1:4747' });
  });

  it('a valid config has no warnings', () => {
    expect(validateConfig({ port: 0, chains: { test: 'all', live: [1, 137] }, exposeControlPlane: true }, FILE).warnings).toEqual([]);
  });
});

describe('resolveConfig', () => {
  it('is the defaults when there is no file', () => {
    expect(resolveConfig({})).toEqual(defaultConfig());
    expect(defaultConfig()).toMatchObject({
      port: 4747,
      host: '127.0.0.1',
      invoiceLifetimeSeconds: 3600,
      chains: { test: 'all', live: 'all' },
      keys: { test: {}, live: {} },
      webhooks: { retrySchedule: STANDARD_RETRY_SCHEDULE, timeoutMs: 10_000 },
      exposeControlPlane: false,
    });
    expect(STANDARD_RETRY_SCHEDULE).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
  });

  it.each([
    ['90s', 90],
    ['15m', 900],
    [2, 2],
    ['2h', 7200],
    ['1d', 86_400],
    [' 45 s ', 45],
    [1.5, 2], // rounded to whole seconds
  ])('invoiceLifetime %j is %i seconds', (value, seconds) => {
    expect(resolveConfig(validateConfig({ invoiceLifetime: value }, FILE).file).invoiceLifetimeSeconds).toBe(seconds);
  });

  it('resolves retry schedules and timeouts written as durations', () => {
    const config = resolveConfig(validateConfig({ webhooks: { retrySchedule: ['90s', '15m', 2, '1h'], timeout: '2s' } }, FILE).file);
    expect(config.webhooks).toEqual({ retrySchedule: [90, 900, 2, 3600], timeoutMs: 2000 });
    expect(resolveConfig(validateConfig({ webhooks: { timeout: 2 } }, FILE).file).webhooks.timeoutMs).toBe(2000);
    expect(resolveConfig(validateConfig({ webhooks: { timeout: '250ms' } }, FILE).file).webhooks.timeoutMs).toBe(250);
  });

  it('the file wins over the defaults, field by field', () => {
    const keys = { partnerKey: generateKey('partner', 'test'), merchantKey: generateKey('merchant', 'test') };
    const { file } = validateConfig(
      { port: 0, database: ':memory:', chains: { test: [84532, 103] }, keys: { test: keys }, webhooks: { timeout: '3s' }, exposeControlPlane: true },
      FILE,
    );
    const config = resolveConfig(file);
    const defaults = defaultConfig();
    expect(config).toEqual({
      ...defaults,
      port: 0,
      database: ':memory:',
      chains: { test: [84532, 103], live: 'all' },
      keys: { test: keys, live: {} },
      webhooks: { retrySchedule: defaults.webhooks.retrySchedule, timeoutMs: 3000 },
      exposeControlPlane: true,
    });
  });

  it('does not share state between calls', () => {
    const a = resolveConfig({});
    a.webhooks.retrySchedule.push(1);
    a.chains.test = [84532];
    expect(resolveConfig({})).toEqual(defaultConfig());
  });
});

describe('resolveConfig: the control token and the public URL', () => {
  it('carries them over (the URL without its trailing slash); none by default', () => {
    expect(defaultConfig()).toMatchObject({ controlToken: null, publicUrl: null });
    const { file } = validateConfig({ controlToken: 'tok-0123456789abcdef', publicUrl: 'http://svc:4747/' }, FILE);
    expect(resolveConfig(file)).toMatchObject({ controlToken: 'tok-0123456789abcdef', publicUrl: 'http://svc:4747' });
  });
});

describe('validateConfig: every problem at once (issue 24)', () => {
  it('a bad port, a bad lifetime and an unknown chain are all reported, with their lines when the text is known', () => {
    const source = ['{', '  "port": "4747",', '  "invoiceLifetime": "5 fortnights",', '  "chains": { "test": [5], "live": "some" }', '}'].join('\n');
    let error: unknown;
    try {
      validateConfig(JSON.parse(source), FILE, source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message, field } = error as ConfigError & { problems: { line: number | null; field: string; message: string }[] };
    expect(problems.map((p) => [p.line, p.field])).toEqual([
      [2, 'port'],
      [3, 'invoiceLifetime'],
      [4, 'chains.test[0]'],
      [4, 'chains.live'],
    ]);
    expect(problems[3]!.message).toBe('must be "all" or a list of live networkIds');
    expect(field).toBe('port');
    expect(message.split('\n')[0]).toBe('svc.config.json: 4 problems');
    expect(message).toContain('\n  svc.config.json:4: chains.test[0]: unknown test networkId 5 ');
  });

  it('without the text (a module config), no line numbers', () => {
    const error = configError({ port: -1 });
    expect(error.message).toBe('svc.config.json: port: must be a port number from 0 to 65535');
  });
});
