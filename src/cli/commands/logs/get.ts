import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import { requestDetail } from '../../views/request.js';
import type { getLogSpec } from './index.js';

/**
 * `svc logs get <requestId>`: one request-journal entry (`getRequest`, GET /__emulator/requests/{requestId}).
 * --json prints the entry as the emulator answered it; a 404 `request_not_found` is the error
 * document and exit 1, as every refusal is (output/render.ts).
 */
export const getLogCommand: Handler<typeof getLogSpec> = async ({ args }, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, 'Fetching the request', client.getRequest({ params: { requestId: args.requestId } }));
  return { data: res.data, human: (c) => requestDetail(c, res.data) };
};
