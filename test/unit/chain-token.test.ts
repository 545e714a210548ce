/**
 * The local chains' test USDC (CONTRACT §14): the bytecode svc puts at each network's USDC address is
 * committed (svc compiles nothing when installed or run), so this holds it to its Solidity source:
 * compiled again with the pinned solc-js and the script's settings, it must give the same bytes.
 * After a change to TestUSDC.sol, `node scripts/build-token.mjs` writes the new bytecode.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bytecodeModule, compileToken, OUTPUT } from '../../scripts/build-token.mjs';
import { TEST_USDC_RUNTIME } from '../../src/chains/token/bytecode.js';

describe('the test USDC', () => {
  it('committed bytecode is what its source compiles to, and the module is what the script writes', async () => {
    const compiled = await compileToken();
    expect(TEST_USDC_RUNTIME).toBe(compiled.runtime);
    expect(fs.readFileSync(OUTPUT, 'utf8')).toBe(bytecodeModule(compiled));
    expect(compiled.version).toMatch(/^0\.8\.37\+/);
  }, 60_000);

  it("is an ERC-20 with USDC's name, symbol and 6 decimals: transfer, approve, transferFrom, the reads and both events", async () => {
    const { abi } = await compileToken();
    const signature = (e: (typeof abi)[number]) => `${e.type} ${e.name}(${(e.inputs ?? []).map((i) => `${i.type}${i.indexed ? ' indexed' : ''}`).join(',')})`;
    expect(abi.map(signature).sort()).toEqual(
      [
        'event Approval(address indexed,address indexed,uint256)',
        'event Transfer(address indexed,address indexed,uint256)',
        'function allowance(address,address)',
        'function approve(address,uint256)',
        'function balanceOf(address)',
        'function decimals()',
        'function name()',
        'function symbol()',
        'function totalSupply()',
        'function transfer(address,uint256)',
        'function transferFrom(address,address,uint256)',
      ].sort(),
    );
    const source = fs.readFileSync(new URL('../../src/chains/token/TestUSDC.sol', import.meta.url), 'utf8');
    expect(source).toContain('string public constant name = "USDC";');
    expect(source).toContain('uint8 public constant decimals = 6;');
  }, 60_000);
});
