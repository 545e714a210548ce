// What ./schemas.ts loads on first use: everything on the request path that needs zod at run time.
export { REQUEST_SCHEMAS } from '../../contract/schemas/requests.js';
export { checkoutTestBody } from '../routes/checkout-test-body.js';
