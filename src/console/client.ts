import { Client, cacheExchange, fetchExchange, mapExchange } from '@urql/core';
import { isUnauthenticated } from './errors.js';

/**
 * A GraphQL client for this session: POST with JSON to the same origin (the session cookie's CSRF
 * rules refuse anything else), a document cache that mutations of a type invalidate.
 * `onUnauthenticated` is called when any answer says the session has ended (signed out elsewhere,
 * its member token revoked, 12 idle hours), so that the console shows the sign-in page.
 */
export function createClient(onUnauthenticated?: () => void): Client {
  return new Client({
    url: '/graphql',
    exchanges: [
      mapExchange({
        onError(error) {
          if (isUnauthenticated(error)) onUnauthenticated?.();
        },
      }),
      cacheExchange,
      fetchExchange,
    ],
    preferGetMethod: false,
    fetchOptions: { credentials: 'same-origin' },
    requestPolicy: 'cache-and-network',
  });
}
