/**
 * The connect-time guard of live deliveries (src/webhooks/ssrf.ts) on Azure's host endpoint,
 * 168.63.129.16: a metadata address like 169.254.169.254, whether a name resolves to it or the URL
 * names it. The resolver is injected, so nothing leaves the machine.
 */
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { AddressBlockedError, checkLiteralHost, guardedLookup } from '../../src/webhooks/ssrf.js';

function lookup(answers: string[], hostname = 'hooks.example.com'): Promise<{ error: Error | null; addresses: LookupAddress[] | string }> {
  return new Promise((resolve) => {
    guardedLookup(async () => answers)(hostname, { all: true }, (error, addresses) => resolve({ error, addresses }));
  });
}

describe('168.63.129.16 at connect time', () => {
  it('a name resolving to it, alone or among public addresses, is refused as metadata', async () => {
    for (const answers of [['168.63.129.16'], ['93.184.215.14', '168.63.129.16'], ['::ffff:168.63.129.16']]) {
      const { error } = await lookup(answers);
      expect(error).toBeInstanceOf(AddressBlockedError);
      expect((error as AddressBlockedError).range).toBe('metadata');
    }
  });

  it('the literal is refused; a public neighbour is not', async () => {
    expect(checkLiteralHost('168.63.129.16')?.range).toBe('metadata');
    expect(checkLiteralHost('168.63.129.17')).toBeNull();
    const { error, addresses } = await lookup(['168.63.129.17']);
    expect(error).toBeNull();
    expect(addresses).toEqual([{ address: '168.63.129.17', family: 4 }]);
  });
});
