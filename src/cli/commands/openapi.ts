import fs from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../../errors.js';
import { escJson } from '../output/escape.js';
import { call, connect } from '../service.js';
import type { Handler } from '../spec.js';
import type { openapiSpec } from './top.js';

interface OpenApiDocument {
  openapi?: string;
  paths?: Record<string, unknown>;
}

/**
 * `svc openapi`: the service's OpenAPI document (GET /openapi.json, no key needed), on stdout in
 * both modes (it is JSON already), or written to `--output` (YAML when the name ends in .yaml/.yml),
 * which then prints what was written: `{"file", "openapi", "paths"}` with --json.
 */
export const openapiCommand: Handler<typeof openapiSpec> = async ({ options }, ctx) => {
  const { client } = await connect(ctx);
  const res = await call(ctx, 'Fetching the OpenAPI document', client.openapi());
  const doc = res.data as OpenApiDocument;
  const output = options.output;
  if (output === undefined) return { data: doc, human: () => escJson(JSON.stringify(doc, null, 2)) };

  const file = path.resolve(ctx.cwd, output);
  const text = /\.ya?ml$/i.test(file) ? (await import('yaml')).stringify(doc) : `${JSON.stringify(doc, null, 2)}\n`;
  try {
    await fs.writeFile(file, text);
  } catch (error) {
    throw new UserError(`cannot write ${output}: ${(error as Error).message}`, 'write_failed');
  }
  const written = { file, openapi: doc.openapi ?? null, paths: Object.keys(doc.paths ?? {}).length };
  return { data: written, human: () => `wrote ${output} (OpenAPI ${written.openapi}, ${written.paths} paths)` };
};
