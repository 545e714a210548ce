import { describe, expect, it } from 'vitest';
import { Router } from '../../src/server/router.js';

describe('Router', () => {
  it('prefers a literal segment to a parameter, whichever was added first', () => {
    for (const order of [0, 1]) {
      const router = new Router<string>();
      const routes: [string, string, string][] = [
        ['GET', '/__emulator/requests/:requestId', 'getRequest'],
        ['GET', '/__emulator/requests/stream', 'streamRequests'],
      ];
      for (const [method, path, name] of order ? routes.reverse() : routes) router.add(method, path, name);
      expect(router.lookup('GET', '/__emulator/requests/stream')).toEqual({ match: { route: 'streamRequests', params: {} } });
      expect(router.lookup('GET', '/__emulator/requests/req_1a')).toEqual({ match: { route: 'getRequest', params: { requestId: 'req_1a' } } });
    }
  });

  it('answers the methods of the matching pattern only: 405 with Allow, 404 for no pattern', () => {
    const router = new Router<string>();
    router.add('GET', '/v1/invoices/:id', 'get');
    router.add('DELETE', '/v1/invoices/:id', 'delete');
    router.add('GET', '/v1/invoices/search', 'search');
    expect(router.lookup('POST', '/v1/invoices/search')).toEqual({ allowed: ['GET'] });
    expect(router.lookup('POST', '/v1/invoices/abc')).toEqual({ allowed: ['GET', 'DELETE'] });
    expect(router.lookup('GET', '/v1/nothing/here')).toBeNull();
  });

  it('decodes parameters, and a malformed escape matches nothing', () => {
    const router = new Router<string>();
    router.add('GET', '/v1/merchants/:id', 'get');
    expect(router.lookup('GET', '/v1/merchants/a%20b')).toEqual({ match: { route: 'get', params: { id: 'a b' } } });
    expect(router.lookup('GET', '/v1/merchants/%E0%A4%A')).toBeNull();
  });
});
