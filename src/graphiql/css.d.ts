// esbuild bundles the stylesheets the page imports into graphiql.css.
declare module '*.css';
