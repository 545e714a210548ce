import type { FaultSpec } from '../../contract/testing-types.js';
import type { FaultControl } from '../public-types.js';
import { parseWith } from '../validation/parse.js';
import { schemas } from '../validation/schemas.js';
import { type FaultTable, presentFault } from './table.js';

/**
 * `emulator.faults`: the same table and the same validation as `POST /__emulator/faults`, so a spec
 * the HTTP API would refuse is refused here with the same error (`validation_failed`, `param`).
 */
export function faultControl(table: FaultTable): FaultControl {
  return {
    add: (spec: FaultSpec) => presentFault(table.add(parseWith(schemas().REQUEST_SCHEMAS.CreateFaultRequest, spec))),
    list: () => table.list().map(presentFault),
    clear: (id?: string) => table.clear(id),
  };
}
