import { OPERATIONS, operationIds, type OperationId } from '../../contract/operations/index.js';
import { Router } from '../../server/router.js';

/** The operation a method and path name: its id and path parameters; `allowed` for a known path with another method. */
export type OperationLookup = { id: OperationId; params: Record<string, string> } | { allowed: string[] } | null;

/**
 * Finds the contract's operation for a request on the wire, with the emulator's own router (a
 * literal segment beats a parameter, as the emulator routes): what the proxy checks a request
 * against and what a recording's exchanges are turned back into.
 */
export function operationFinder(): (method: string, path: string) => OperationLookup {
  const router = new Router<OperationId>();
  for (const id of operationIds()) router.add(OPERATIONS[id].method, OPERATIONS[id].path.replace(/\{(\w+)\}/g, ':$1'), id);
  return (method, path) => {
    const found = router.lookup(method.toUpperCase(), path);
    if (!found) return null;
    if ('allowed' in found) return { allowed: found.allowed };
    return { id: found.match.route, params: found.match.params };
  };
}
