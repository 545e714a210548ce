/**
 * Whether a process with this pid exists: signal 0 checks without sending anything. EPERM means it
 * exists but belongs to another user. Used for the owners of claims, state files, restore records and
 * temporary leftovers (a recycled pid reads as alive: callers that care check what it runs).
 */
import { errorCode } from './domain/caught.js';

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}
