import fs from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../../errors.js';
import { VERSION } from '../../version.js';
import { escJson } from '../output/escape.js';
import type { Context } from '../context.js';
import type { Handler } from '../spec.js';
import type { openapiSpec } from './top.js';
import { resolveTarget } from '../target.js';
import { errorMessage } from '../../domain/caught.js';

/**
 * `svc openapi`: the OpenAPI document, built here from the contract (src/contract/), the same that
 * `GET /openapi.json` of an emulator of this version serves, so no emulator needs to run. Its server
 * is the resolved target's base URL (flags, environment, profile, local emulator), else the default
 * `http://127.0.0.1:4747`. On stdout in both modes (it is JSON already), or written to `--output`
 * (YAML when the name ends in .yaml/.yml), which then prints `{"file", "openapi", "paths"}` with --json.
 */
export const openapiCommand: Handler<typeof openapiSpec> = async ({ options }, ctx) => {
  const { buildOpenApi, DEFAULT_SERVER_URL } = await import('../../contract/openapi/build.js');
  const doc = buildOpenApi(VERSION, (await serverUrl(ctx)) ?? DEFAULT_SERVER_URL);
  const output = options.output;
  if (output === undefined) return { data: doc, human: () => escJson(JSON.stringify(doc, null, 2)) };

  const file = path.resolve(ctx.cwd, output);
  const text = /\.ya?ml$/i.test(file) ? (await import('yaml')).stringify(doc) : `${JSON.stringify(doc, null, 2)}\n`;
  try {
    await fs.writeFile(file, text);
  } catch (error) {
    throw new UserError(`cannot write ${output}: ${errorMessage(error)}`, 'write_failed');
  }
  const written = { file, openapi: doc.openapi, paths: Object.keys(doc.paths).length };
  return { data: written, human: () => `wrote ${output} (OpenAPI ${written.openapi}, ${written.paths} paths)` };
};

/** The target's base URL when one is configured; none is not an error here (nothing is sent). */
async function serverUrl(ctx: Context): Promise<string | undefined> {
  try {
    return (await resolveTarget(ctx)).baseUrl;
  } catch (error) {
    if (error instanceof UserError && error.code === 'no_target') return undefined;
    throw error;
  }
}
