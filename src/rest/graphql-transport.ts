import type Koa from 'koa';

// What `/graphql` answers a request that is not a GraphQL request over JSON, before Apollo sees it.
// Apollo's CSRF prevention stays on and still guards every request that gets through; these checks
// only answer first, with a message that says what to send instead of Apollo's generic CSRF text.
// The body keeps Apollo's shape for such refusals: `{"errors": [{message, extensions: {code: "BAD_REQUEST"}}]}`.

/** Headers that make a GET a non-simple request (Apollo's CSRF prevention accepts either). */
const PREFLIGHT_HEADERS = ['apollo-require-preflight', 'x-apollo-operation-name'];
/** Content types a browser may send cross-site without a preflight. */
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

const HOW =
  'send GraphQL requests as POST /graphql with Content-Type: application/json and a JSON body {"query": "…", "variables": {…}}';

function mimeType(ctx: Koa.Context): string {
  return ctx.get('content-type').split(';')[0]!.trim().toLowerCase();
}

function refuse(ctx: Koa.Context, message: string, status = 400): void {
  ctx.status = status;
  ctx.body = { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] };
}

/** The types Apollo answers in. */
const ANSWER_TYPES = ['application/json', 'application/graphql-response+json'];

/**
 * A request whose Accept header takes neither answer type is refused here, before it runs: Apollo
 * would run the operation (a mutation writes) and only then answer 406, so the client would be
 * told of a failure after the write.
 */
function acceptsNoAnswer(ctx: Koa.Context): boolean {
  if (ctx.get('accept') === '' || ctx.accepts(ANSWER_TYPES) !== false) return false;
  refuse(
    ctx,
    `The Accept header takes neither ${ANSWER_TYPES.join(' nor ')}: send Accept: application/json (nothing was run)`,
    406,
  );
  return true;
}

/** `POST /graphql`: the body must be JSON (`application/json`, or a `+json` type). */
export const graphqlPostTransport: Koa.Middleware = async (ctx, next) => {
  if (acceptsNoAnswer(ctx)) return;
  const type = mimeType(ctx);
  if (type === 'application/json' || type.endsWith('+json')) return next();
  const sent = type ? `this request's Content-Type is ${type}` : 'this request has no Content-Type';
  refuse(ctx, `Send Content-Type: application/json (${sent}) with a JSON body {"query": "…", "variables": {…}}`);
};

/**
 * `GET /graphql` that is not a browser asking for the page: it needs a `query` parameter, and — as
 * Apollo's CSRF prevention requires of a request a browser could send cross-site — a preflight header.
 */
export const graphqlGetTransport: Koa.Middleware = async (ctx, next) => {
  if (acceptsNoAnswer(ctx)) return;
  if (ctx.query.query === undefined)
    return refuse(
      ctx,
      `GET /graphql without a query parameter: ${HOW} (a browser gets a query console at this address)`,
    );
  const type = mimeType(ctx);
  const preflighted = (type !== '' && !SIMPLE_TYPES.has(type)) || PREFLIGHT_HEADERS.some((h) => ctx.get(h) !== '');
  if (!preflighted) {
    return refuse(
      ctx,
      `A GET query needs the header apollo-require-preflight: true (protection against cross-site requests); or ${HOW}`,
    );
  }
  return next();
};
