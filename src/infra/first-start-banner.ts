// What a first start prints once: the generated admin token and where to go with it. The console
// comes first (a newcomer's way in), then the same by GraphQL for those who script.

/** The admin token of a first start, with the next step: the console first, then the same by GraphQL. */
export function firstStartBanner(workspace: string, token: string, baseUrl: string): string {
  return [
    '',
    '================ first start ================',
    `Workspace "${workspace}" and an admin member were created.`,
    `Admin token (shown once, store it now): ${token}`,
    '',
    'Next step: open the console and sign in with the token:',
    `  ${baseUrl}/console`,
    '',
    'Or script it with GraphQL:',
    `  export BASE=${baseUrl}`,
    `  export ADMIN_TOKEN=${token}`,
    `  curl -s $BASE/graphql -H 'content-type: application/json' -H "authorization: Bearer $ADMIN_TOKEN" \\`,
    `    -d '{"query":"mutation { createAgent(input: {name: \\"My agent\\"}) { id } }"}'`,
    '  Then create a key (createAgentApiKey) and an endpoint (addHttpEndpoint): see README.md.',
    '=============================================',
    '',
  ].join('\n');
}
