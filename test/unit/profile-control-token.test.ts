import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/validate.js';
import { ConfigError } from '../../src/errors.js';

/**
 * A profile's `controlToken` (issue 28) is a known setting of the config file, with the rule of
 * `svc dev --control-token` (16–255 characters): `svc dev` validates the whole file, and a profile's
 * token must neither read as an unknown key nor pass as a typo.
 */
const FILE = 'svc.config.json';

describe("a profile's controlToken", () => {
  it('is a known setting', () => {
    const { file, warnings } = validateConfig({ profiles: { staging: { baseUrl: 'https://svc.example.com', controlToken: 'tok-0123456789abcdef' } } }, FILE);
    expect(warnings).toEqual([]);
    expect(file.profiles?.staging?.controlToken).toBe('tok-0123456789abcdef');
  });

  it.each([['short'], ['x'.repeat(256)], [42]])('is refused as %j, naming the field', (token) => {
    let caught: unknown;
    try {
      validateConfig({ profiles: { staging: { controlToken: token } } }, FILE);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).field).toBe('profiles.staging.controlToken');
  });
});
