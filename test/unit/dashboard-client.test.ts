import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations/index.js';

/**
 * Issue 26, "one client": the dashboard (assets/ui.js and its modules, plain JS that tsc never sees) talks to the
 * emulator only through the typed client the package exports, by operation id. These checks read
 * its text: no API path written in it, no fetch of its own, and every operation id it names exists
 * in the contract (a typo would otherwise surface only as a broken button).
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Every module of the dashboard: assets/*.js but the checkout page's scripts (checkout.js, checkout-wallet.js).
const MODULES = fs.readdirSync(path.join(ROOT, 'assets')).filter((f) => f.endsWith('.js') && !f.startsWith('checkout'));
const UI = MODULES.map((f) => fs.readFileSync(path.join(ROOT, 'assets', f), 'utf8')).join('\n');
// String and template literals, comments left out (they may name paths to explain themselves).
const code = UI.replace(/^\s*\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
const literals = [...code.matchAll(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g)].map((m) => m[0]);

describe('the dashboard (assets/ui.js and its modules) calls the API through the typed client', () => {
  it('imports createClient from the client module served beside it', () => {
    expect(UI).toMatch(/^import \{[^}]*\bcreateClient\b[^}]*\} from '\.\/client\.js';$/m);
  });

  it('holds no API path literal and makes no request of its own', () => {
    expect(literals.length).toBeGreaterThan(100);
    expect(literals.filter((l) => /\/v1\b|\/__emulator\b|\/checkout\/|\/bind\//.test(l))).toEqual([]);
    expect(code).not.toMatch(/\bfetch\s*\(|XMLHttpRequest/);
  });

  it('names only operations the contract has', () => {
    const named = [...code.matchAll(/\b(?:api|operationPath)\('(\w+)'/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(25);
    expect(named.filter((id) => !Object.hasOwn(OPERATIONS, id))).toEqual([]);
  });
});
