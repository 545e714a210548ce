/**
 * A write that lost a race to a concurrent one, detected by a constraint (issue 27). SQLite never
 * raises these: its writes are serialised, so the loser finds the winner's row before it writes
 * and takes the usual path. PostgreSQL runs transactions side by side; the loser's transaction
 * must roll back, and the caller answers as SQLite's path would have:
 * - `idempotency_key`: another create with the same scope committed first; read it back and replay
 *   it (or 422 for another body), exactly as if it had been found before the work.
 * - `external_tenant_id`: 409 `external_tenant_id_taken`.
 */
export class StoreConflictError extends Error {
  constructor(readonly conflict: 'idempotency_key' | 'external_tenant_id') {
    super(`a concurrent write took this ${conflict.replace('_', ' ')} first`);
    this.name = 'StoreConflictError';
  }
}
