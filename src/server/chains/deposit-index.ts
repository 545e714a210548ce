import { evmDepositAddress } from '../../domain/addresses.js';
import type { StoreDb } from '../../store/db.js';

const PAGE = 1000;

/**
 * Which test invoice a local chain's address belongs to. An invoice's EVM deposit address is derived
 * from its id (one-way, the same on every EVM network, src/domain/addresses.ts), so the index learns
 * the invoices created since it last looked (by their `seq`) whenever it meets an address it does not
 * know. Live invoices never touch local chains (CONTRACT §14): only test invoices are in it. A cache of
 * the store, one process's: a reset or a restore empties it.
 */
export class DepositIndex {
  private readonly byAddress = new Map<string, string>();
  private lastSeq = 0;

  constructor(private readonly db: StoreDb) {}

  /** The invoice whose deposit address this is (any case), if any. */
  async invoiceAt(address: string): Promise<string | undefined> {
    const key = address.toLowerCase();
    const known = this.byAddress.get(key);
    if (known !== undefined) return known;
    await this.learn();
    return this.byAddress.get(key);
  }

  clear(): void {
    this.byAddress.clear();
    this.lastSeq = 0;
  }

  private async learn(): Promise<void> {
    for (;;) {
      const rows = await this.db.chains.testInvoicesAfter(this.lastSeq, PAGE);
      for (const row of rows) {
        this.byAddress.set(evmDepositAddress(row.id).toLowerCase(), row.id);
        this.lastSeq = row.seq;
      }
      if (rows.length < PAGE) return;
    }
  }
}
