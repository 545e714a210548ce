import type { Style } from '../../output/style.js';
import { ApiRefusedError } from '../../../client/errors.js';
import { keyHint, parseKey } from '../../../domain/keys.js';
import type { DefaultKeys } from '../../../server/bootstrap.js';
import { esc } from '../../output/escape.js';
import { keyValue, styled, table } from '../../output/human.js';
import { call, connect } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { listKeysSpec } from './index.js';
import type { Source, Target } from '../../target.js';

interface KeyInUse {
  kind: 'partner' | 'merchant';
  hint: string;
  environment: 'test' | 'live' | null;
  source: Source;
}

/**
 * `svc keys list`: the keys commands use (as hints: the user already has them), where each came
 * from, and, when the target is an emulator on this machine, the default keys it issued at first
 * start in full (GET /__emulator/keys: readable on purpose, so that local tools and curl find them).
 * `--json`: `{"baseUrl", "inUse": [...], "emulatorDefaults": <GET /__emulator/keys> | null}`.
 */
export const listKeysCommand: Handler<typeof listKeysSpec> = async (_input, ctx) => {
  const { client, target } = await connect(ctx);
  const inUse = [inUseKey('partner', target.partnerKey, target.partnerKeySource), inUseKey('merchant', target.merchantKey, target.merchantKeySource)].filter(
    (k): k is KeyInUse => k !== null,
  );
  let emulatorDefaults: DefaultKeys | null = null;
  if (isLoopback(target)) {
    try {
      emulatorDefaults = (await call(ctx, 'Fetching the emulator keys', client.getDefaultKeys())).data;
    } catch (error) {
      // Something else listens there (not the emulator): there are simply no defaults to show.
      if (!(error instanceof ApiRefusedError)) throw error;
    }
  }
  const data = { baseUrl: target.baseUrl, inUse, emulatorDefaults };
  return { data, human: (c) => view(c, data) };
};

function inUseKey(kind: KeyInUse['kind'], key: string | undefined, source: Source | undefined): KeyInUse | null {
  if (!key || !source) return null;
  return { kind, hint: keyHint(key), environment: parseKey(key)?.environment ?? null, source };
}

/** The control plane answers loopback clients only: asking anything else is pointless. */
function isLoopback(target: Target): boolean {
  try {
    const host = new URL(target.baseUrl).hostname;
    return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
  } catch {
    return false;
  }
}

function view(c: Style, d: { baseUrl: string; inUse: KeyInUse[]; emulatorDefaults: DefaultKeys | null }): string {
  const used = table(
    c,
    [
      { header: 'kind', value: (k: KeyInUse) => k.kind },
      { header: 'key', value: (k) => k.hint },
      { header: 'environment', value: (k) => k.environment },
      { header: 'source', value: (k) => k.source },
    ],
    d.inUse,
    'no keys: pass --api-key, set SVC_PARTNER_KEY / SVC_MERCHANT_KEY, or run `svc dev` here',
  );
  const parts = [`${c.bold('In use')} ${c.dim(`for ${esc(d.baseUrl)}`)}`, used];
  if (d.emulatorDefaults) {
    const k = d.emulatorDefaults;
    parts.push(
      '',
      c.bold('Emulator default keys'),
      keyValue(c, [
        ['partner', k.partnerId],
        ['test partner key', k.test.partnerKey],
        ['test merchant key', styled(`${esc(k.test.merchantKey)}  ${c.dim(`(merchant ${esc(k.test.merchantId)})`)}`)],
        ['live partner key', k.live.partnerKey],
        ['live merchant key', styled(`${esc(k.live.merchantKey)}  ${c.dim(`(merchant ${esc(k.live.merchantId)})`)}`)],
      ]),
    );
  }
  return parts.join('\n');
}
