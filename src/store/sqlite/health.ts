import { isStorageFull } from '../errors.js';
import { errorCode, errorMessage } from '../../domain/caught.js';

/**
 * Whether writes are being stored. A disk that fills up makes every write fail while reads still
 * work; health reports it (CONTRACT §8: `/__emulator/health` answers 503 "degraded") until a write
 * commits again.
 */
export class StorageHealth {
  private reason: string | null = null;

  /** Null while writes succeed; otherwise why the last one could not be stored. */
  problem(): string | null {
    return this.reason;
  }

  /** A write failed: only storage failures change the health (a constraint or a busy lock does not). */
  failed(error: unknown): void {
    if (!isStorageFull(error)) return;
    this.reason = `the database cannot be written (${errorCode(error)}: ${errorMessage(error)}); free disk space, then retry`;
  }

  /** A transaction committed: writes are stored again. */
  committed(): void {
    this.reason = null;
  }
}
