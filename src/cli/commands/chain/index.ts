import { defineCommand, withHandler } from '../../spec.js';

const network = { flags: '--network <id>', description: 'the local chain of this networkId (11155111, 84532, 80002, 421614)', parse: 'int' } as const;

export const listChainsSpec = defineCommand({
  name: 'chain list',
  summary: 'the local chains of svc dev --chains: RPC URLs, heads, token, funded accounts',
  examples: ['svc chain list', 'svc chain list --json'],
});

export const mineChainSpec = defineCommand({
  name: 'chain mine',
  summary: 'mine blocks on the local chains (all, or --network), then credit and confirm what they make due',
  args: [{ name: 'blocks', description: 'how many blocks (default 1)', required: false }],
  options: [network],
  examples: ['svc chain mine', 'svc chain mine 3 --network 84532'],
});

export const payChainSpec = defineCommand({
  name: 'chain pay',
  summary: 'pay an invoice with a real signed transfer from a funded local account; prints the tx hash and the invoice status',
  description:
    'Signs an ERC-20 transfer of the test USDC from one of anvil’s funded accounts and sends it through the local chain’s RPC URL, as a wallet would; the emulator sees it mined and credits it. Then mines the blocks its confirmation needs, unless --no-confirm.',
  args: [{ name: 'invoiceId', description: 'invoice id (test environment)' }],
  options: [
    network,
    { flags: '--token <symbol>', description: 'the token to pay with (default: the route’s first, USDC)' },
    { flags: '--amount <amount>', description: 'amount in token units (default: what is left to pay)' },
    { flags: '--account <index>', description: 'which funded account pays, 0-9 (default 0)', parse: 'int' },
    { flags: '--no-confirm', description: 'leave the payment confirming (CONFIRMING): mine later with svc chain mine' },
  ],
  examples: ['svc chain pay 5b0e…', 'svc chain pay 5b0e… --network 84532 --amount 4.5 --no-confirm'],
});

export const chainCommands = [
  withHandler(listChainsSpec, async () => (await import('./list.js')).listChainsCommand),
  withHandler(mineChainSpec, async () => (await import('./mine.js')).mineChainCommand),
  withHandler(payChainSpec, async () => (await import('./pay.js')).payChainCommand),
];
