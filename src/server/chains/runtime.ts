import { LOCAL_ACCOUNTS } from '../../chains/accounts.js';
import type { LocalChain } from '../../chains/local-chain.js';
import { NodeUnreachable, type RawAnswer } from '../../chains/node-rpc.js';
import { stopChains } from '../../chains/start-chains.js';
import { ChainWatcher } from '../../chains/watcher.js';
import { OPERATIONS } from '../../contract/operations/index.js';
import { errorMessage } from '../../domain/caught.js';
import { ApiError } from '../api-error.js';
import type { AppDeps } from '../route.js';
import { processBlocks } from './credit.js';
import { DepositIndex } from './deposit-index.js';
import type { ChainsControl, LocalChainView } from './types.js';

/** After the last block processed, the chains' states are saved this much later (one save for a burst). */
const SAVE_AFTER_MS = 1000;

interface Entry {
  chain: LocalChain;
  watcher: ChainWatcher;
  /** Said once: a node that died is reported, not retried every second. */
  dead: boolean;
}

/**
 * The local chains of a running emulator (CONTRACT §14), once its app exists: each chain's state
 * brought back from the store (a restart, `--snapshot`) or made from genesis, a watcher per chain that
 * turns transfers into payments (./credit.ts), and what the control plane, the clock, reset and
 * snapshots do to them. The chains' states are saved in the store: shortly after new blocks, at a
 * snapshot, and when the emulator stops.
 */
export async function attachChains(chains: readonly LocalChain[], deps: AppDeps, confirmations: number): Promise<ChainsControl> {
  const ctx = { deps, index: new DepositIndex(deps.db), confirmations };
  const stored = deps.db.chains;
  const entries: Entry[] = [];
  let saveTimer: NodeJS.Timeout | undefined;
  let saving: Promise<void> = Promise.resolve();

  const report = (message: string, error?: unknown) =>
    deps.emit({ type: 'error', message: error === undefined ? message : `${message}: ${errorMessage(error)}` });

  /** Every chain's state and position into the store; one save at a time. */
  const save = (): Promise<void> => {
    clearTimeout(saveTimer);
    const run = saving.then(async () => {
      for (const { chain, watcher, dead } of entries) {
        if (dead) continue;
        // The position first: a state dumped later holds at least those blocks.
        const position = watcher.position;
        const state = await chain.dump();
        await stored.saveChainState(chain.networkId, state, position, deps.clock.now());
      }
    });
    saving = run.catch(() => {});
    return run;
  };
  const saveSoon = () => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => void save().catch((error: unknown) => report('local chains: saving their state failed', error)), SAVE_AFTER_MS);
    saveTimer.unref();
  };

  /** A chain as the store left it (its saved state), or from genesis; resolves with the watcher's position. */
  const bringBack = async (chain: LocalChain): Promise<number> => {
    const row = await stored.findLocalChain(chain.networkId);
    let restored = false;
    if (row?.state) {
      try {
        await chain.load(row.state);
        restored = true;
      } catch (error) {
        report(`local chain ${chain.networkId}: its saved state could not be loaded; it starts again from genesis`, error);
      }
    }
    if (!restored) await (row ? chain.reset() : chain.genesis());
    const head = await chain.blockNumber();
    // A state older than the position (a crash before the last save) goes back to what the chain has.
    const position = restored && row ? Math.min(Number(row.last_block), head) : head;
    if (!restored) await stored.saveLastBlock(chain.networkId, position, deps.clock.now());
    return position;
  };

  const watch = (chain: LocalChain, position: number): Entry => {
    const watcher = new ChainWatcher(chain, position, {
      onBlocks: async (from, to, head) => {
        await processBlocks(ctx, chain, from, to, head);
        saveSoon();
      },
      onRewind: (head) => stored.saveLastBlock(chain.networkId, head, deps.clock.now()),
      onError: (error) => {
        if (entry.dead) return;
        const exit = chain.node.exit;
        if (exit) {
          entry.dead = true;
          void watcher.stop();
          report(
            `local chain ${chain.networkId}: its anvil node exited (${exit.signal ?? `code ${exit.code}`})${exit.output ? `: ${lastLine(exit.output)}` : ''}`,
          );
        } else report(`local chain ${chain.networkId}`, error);
      },
    });
    const entry: Entry = { chain, watcher, dead: false };
    return entry;
  };

  const positions = await Promise.all(chains.map(bringBack));
  entries.push(...chains.map((chain, i) => watch(chain, positions[i]!)));
  for (const { watcher } of entries) watcher.start();

  const entryOf = (networkId: number): Entry => {
    const entry = entries.find((e) => e.chain.networkId === networkId);
    if (!entry)
      throw new ApiError(
        404,
        'chain_not_found',
        `No local chain has networkId ${networkId}: svc dev --chains runs ${entries.map((e) => e.chain.networkId).join(', ')}.`,
      );
    return entry;
  };
  const view = async ({ chain, watcher }: Entry): Promise<LocalChainView> => ({
    networkId: chain.networkId,
    name: chain.network.chainName,
    rpcUrl: `${deps.baseUrl()}${OPERATIONS.chainRpc.path.replace('{networkId}', String(chain.networkId))}`,
    blockNumber: await chain.blockNumber().catch(() => watcher.position),
    confirmations,
    tokens: chain.network.tokens.map((t) => ({ symbol: t.symbol, contractAddress: t.contractAddress, decimals: t.decimals })),
    accounts: LOCAL_ACCOUNTS.map((a) => ({ address: a.address, privateKey: a.privateKey })),
  });
  const unavailable = (entry: Entry, error: unknown): never => {
    if (error instanceof NodeUnreachable || entry.chain.node.exit) {
      throw new ApiError(502, 'chain_unavailable', `The local chain ${entry.chain.networkId}'s node did not answer (${errorMessage(error)}).`);
    }
    throw error;
  };
  const pauseAll = async () => {
    clearTimeout(saveTimer);
    await saving;
    await Promise.all(entries.map((e) => e.watcher.pause()));
  };
  const resumeAll = async (fromStore: boolean) => {
    ctx.index.clear();
    await Promise.all(
      entries.map(async (e) => {
        if (e.dead) return;
        const position = fromStore ? await bringBack(e.chain) : await restartFromGenesis(e.chain);
        e.watcher.resume(position);
      }),
    );
  };
  const restartFromGenesis = async (chain: LocalChain): Promise<number> => {
    await chain.reset();
    const head = await chain.blockNumber();
    await stored.saveLastBlock(chain.networkId, head, deps.clock.now());
    return head;
  };

  return {
    confirmations,
    networkIds: () => entries.map((e) => e.chain.networkId),
    list: () => Promise.all(entries.map(view)),
    chain: (networkId) => entryOf(networkId).chain,
    mine: async (networkId, blocks) => {
      const entry = entryOf(networkId);
      try {
        await entry.chain.mine(blocks);
        await entry.watcher.sync();
      } catch (error) {
        unavailable(entry, error);
      }
      return view(entry);
    },
    sync: async (networkId) => {
      await entryOf(networkId).watcher.sync();
    },
    forward: async (networkId, body): Promise<RawAnswer> => {
      const entry = entryOf(networkId);
      try {
        return await entry.chain.rpc.forward(body);
      } catch (error) {
        return unavailable(entry, error);
      }
    },
    settle: async () => {
      await Promise.all(
        entries
          .filter((e) => !e.dead)
          .map(async ({ chain, watcher }) => {
            await watcher.sync();
            const last = await stored.lastUnconfirmedBlock(chain.networkId);
            if (last === null) return;
            const missing = last + confirmations - 1 - (await chain.blockNumber());
            if (missing <= 0) return;
            await chain.mine(missing);
            await watcher.sync();
          }),
      );
    },
    pause: pauseAll,
    resume: () => {
      for (const e of entries) if (!e.dead) e.watcher.resume(e.watcher.position);
    },
    restart: () => resumeAll(false),
    save,
    restored: () => resumeAll(true),
    stop: async () => {
      await pauseAll();
      try {
        await save();
      } catch (error) {
        report('local chains: saving their state failed', error);
      }
      await Promise.all(entries.map((e) => e.watcher.stop()));
      await stopChains(chains);
    },
  };
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim() ?? '';
}
