/**
 * `--webhook-allow` (src/domain/webhook-allow.ts; CONTRACT §8 "An exposed emulator is no open
 * proxy"): host names match exactly (case and trailing dots aside), addresses and CIDR ranges match
 * the addresses a name resolves to (an IPv4-mapped IPv6 address as its IPv4), and a bad entry is
 * refused naming it, in the config file too.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load.js';
import { validateConfig } from '../../src/config/validate.js';
import { parseWebhookAllow, webhookAllowProblem } from '../../src/domain/webhook-allow.js';
import { isLoopbackBind } from '../../src/webhooks/targets.js';

describe('parseWebhookAllow', () => {
  const allow = parseWebhookAllow(['app, Hooks.Internal.', '10.1.0.0/16', 'fd00::/8', '192.168.1.5']);

  it('matches listed host names exactly, and literal hosts by range', () => {
    expect(allow.entries).toEqual(['app', 'Hooks.Internal.', '10.1.0.0/16', 'fd00::/8', '192.168.1.5']);
    expect(['app', 'APP', 'app.', 'hooks.internal', '10.1.2.3', '[fd00::1]', '192.168.1.5'].map((h) => allow.host(h))).toEqual(Array(7).fill(true));
    expect(['app2', 'x.app', 'internal', '10.2.0.1', '192.168.1.6', '[fe80::1]'].map((h) => allow.host(h))).toEqual(Array(6).fill(false));
  });

  it('matches addresses inside the ranges, IPv4-mapped ones as their IPv4', () => {
    expect(['10.1.255.255', '::ffff:10.1.0.1', 'fdff::1', '192.168.1.5'].map((a) => allow.address(a))).toEqual([true, true, true, true]);
    expect(['10.0.255.255', '127.0.0.1', 'fe80::1', '169.254.169.254', 'not-an-address'].map((a) => allow.address(a))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(parseWebhookAllow([]).address('10.0.0.1')).toBe(false);
    expect(parseWebhookAllow(['0.0.0.0/0']).address('169.254.169.254')).toBe(true);
  });

  it('refuses what is not a host, an address or a range, naming it', () => {
    for (const bad of ['http://app', 'app:3000', 'app/hooks', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/x', 'a b']) {
      expect(webhookAllowProblem(bad), bad).toContain(bad);
      expect(() => parseWebhookAllow([bad])).toThrow(TypeError);
    }
    expect(webhookAllowProblem('10.0.0.0/8')).toBeNull();
  });

  it('is a config file setting, checked with the file and the field named', () => {
    expect(resolveConfig(validateConfig({ webhookAllow: ['app', '10.0.0.0/8'] }, 'svc.config.json').file).webhookAllow).toEqual(['app', '10.0.0.0/8']);
    expect(() => validateConfig({ webhookAllow: ['http://app'] }, 'svc.config.json')).toThrow(/webhookAllow\[0\]: "http:\/\/app" is not a host name/);
  });
});

describe('isLoopbackBind: what counts as listening on loopback', () => {
  it('loopback addresses and localhost names are; anything else is exposed', () => {
    expect(['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost', 'LOCALHOST.', 'svc.localhost'].map(isLoopbackBind)).toEqual(Array(7).fill(true));
    expect(['0.0.0.0', '::', '192.168.1.10', 'myhost.lan', '10.0.0.1'].map(isLoopbackBind)).toEqual(Array(5).fill(false));
  });
});
