# Production image: compiled JavaScript run by plain `node` as a non-root user.
# Build: docker build -t agent-exposure-service .
# Run (embedded database in a volume): docker run -p 3000:3000 -v aes-data:/data agent-exposure-service
# With PostgreSQL: see compose.yaml. CI runs the same start outside Docker (scripts/smoke-production.sh).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The chat widget is bundled from its source by esbuild when the service starts; the console was
# bundled into dist/console by npm run build (its packages are devDependencies).
COPY --from=build /app/src/widget ./src/widget
# The widget's event stream parser is the CLI's (one module for the CLI, the console and the widget).
COPY --from=build /app/packages/cli/src/shared ./packages/cli/src/shared
# So is GraphiQL, the page of /graphql in a browser.
COPY --from=build /app/src/graphiql ./src/graphiql
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "--max-old-space-size=384", "dist/src/main.js"]
