/**
 * The allowed-hosts check (CONTRACT §8, DNS rebinding) as pure functions, and its config field:
 * src/domain/allowed-hosts.ts, src/server/http/host-check.ts, `allowedHosts` in src/config/.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load.js';
import { validateConfig } from '../../src/config/validate.js';
import { allowedHostProblem, hostnameOf, normalizeAllowedHost } from '../../src/domain/allowed-hosts.js';
import { ConfigError } from '../../src/errors.js';
import { createHostCheck } from '../../src/server/http/host-check.js';

describe('hostnameOf', () => {
  it.each([
    ['localhost:4747', 'localhost'],
    ['LOCALHOST', 'localhost'],
    ['example.com.', 'example.com'],
    ['127.0.0.1:80', '127.0.0.1'],
    ['[::1]:4747', '::1'],
    ['[::1]', '::1'],
    ['::1', '::1'],
    ['my_service', 'my_service'],
  ])('%j → %j', (value, expected) => {
    expect(hostnameOf(value)).toBe(expected);
  });

  it.each(['[::1', '[::1]x', '[evil.com]', 'a b', 'evil.com:80:80', 'évil.com', 'evil.com/path', 'user@evil.com'])('%j is not a host', (value) => {
    expect(hostnameOf(value)).toBeNull();
  });
});

describe('normalizeAllowedHost', () => {
  it('keeps names, addresses and ".domain" entries; drops ports; knows "all"', () => {
    expect(normalizeAllowedHost('My-Laptop.local')).toBe('my-laptop.local');
    expect(normalizeAllowedHost('svc:4747')).toBe('svc');
    expect(normalizeAllowedHost('.Example.test')).toBe('.example.test');
    expect(normalizeAllowedHost('[fd00::5]')).toBe('fd00::5');
    expect(normalizeAllowedHost('ALL')).toBe('all');
  });

  it.each(['http://svc/', 'svc/path', '', ' ', '.', 'a b'])('refuses %j with a reason', (entry) => {
    expect(normalizeAllowedHost(entry)).toBeNull();
    expect(allowedHostProblem(entry)).toMatch(/is not a host name or address/);
  });
});

describe('createHostCheck', () => {
  const check = createHostCheck({ allowedHosts: ['box.lan', '.dev.test'], ownHosts: ['pay.example.com', '192.168.1.20'] });

  it.each([
    'localhost',
    'localhost:1',
    'a.b.localhost',
    '127.0.0.1:4747',
    '127.255.0.9',
    '[::1]:4747',
    'box.lan:4747',
    'dev.test',
    'x.dev.test',
    'pay.example.com:443',
    '192.168.1.20:4747',
  ])('allows %j', (host) => {
    expect(check(host)).toBe(true);
  });

  it.each(['evil.example', 'localhost.evil.example', 'box.lan.evil.example', 'xdev.test', '192.168.1.21', '0.0.0.0', '[::2]', '', 'a b'])(
    'refuses %j',
    (host) => {
      expect(check(host)).toBe(false);
    },
  );

  it('serves a request without a Host header; "all" lifts the check', () => {
    expect(check(undefined)).toBe(true);
    expect(createHostCheck({ allowedHosts: ['all'], ownHosts: [] })('evil.example')).toBe(true);
  });

  it('gives the same answer from its cache, even after the cache starts over', () => {
    for (let i = 0; i < 600; i++) expect(check(`h${i}.example`)).toBe(false);
    expect(check('evil.example')).toBe(false);
    expect(check('evil.example')).toBe(false);
    expect(check('box.lan')).toBe(true);
  });
});

describe('allowedHosts in the config file', () => {
  it('takes a list or "all"', () => {
    expect(resolveConfig(validateConfig({ allowedHosts: ['box.lan', '.dev.test'] }, 'svc.config.json').file).allowedHosts).toEqual(['box.lan', '.dev.test']);
    expect(resolveConfig(validateConfig({ allowedHosts: 'all' }, 'svc.config.json').file).allowedHosts).toEqual(['all']);
    expect(resolveConfig({}).allowedHosts).toEqual([]);
  });

  it('an entry that is not a host is a ConfigError naming the field', () => {
    let error: unknown;
    try {
      validateConfig({ allowedHosts: ['box.lan', 'http://box.lan/'] }, 'svc.config.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('allowedHosts[1]');
    expect((error as Error).message).toContain('is not a host name or address');
  });
});
