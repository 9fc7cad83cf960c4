import { Client, cacheExchange, fetchExchange } from '@urql/core';

/**
 * A GraphQL client for this session: POST with JSON to the same origin (the session cookie's CSRF
 * rules refuse anything else), a document cache that mutations of a type invalidate.
 */
export function createClient(): Client {
  return new Client({
    url: '/graphql',
    exchanges: [cacheExchange, fetchExchange],
    preferGetMethod: false,
    fetchOptions: { credentials: 'same-origin' },
    requestPolicy: 'cache-and-network',
  });
}
