# syntax=docker/dockerfile:1
#
# Roster's compiled build on Node.js 20, run as the unprivileged `node` user.
#
#   docker build -t roster .
#   docker run --rm -p 3000:3000 -e DATABASE_URL=postgres://… -e SESSION_SECRET=… \
#     -e RESEND_API_KEY=… roster                  # the API (the default command)
#   docker run --rm -e DATABASE_URL=… roster worker  # a worker; run as many as the load needs
#   docker run --rm -e DATABASE_URL=… roster cli org create --name Acme --slug acme
#
# compose.yaml runs it with PostgreSQL, Redis and a worker.

FROM node:20-bookworm-slim AS build
WORKDIR /src
# Dependencies first, so that a change of the sources alone reuses this layer.
COPY package.json package-lock.json ./
COPY domain/package.json domain/package.json
COPY application/package.json application/package.json
RUN npm ci --no-audit --no-fund
COPY . .
# Also writes dist/pglite-template-<version>.tar.gz, the new embedded database a first start loads.
# The CLI's first run writes its code cache beside it, which `roster cli` then starts from (the
# image's dist/ is not the node user's to write).
RUN node scripts/build.mjs --force && node dist/cli.mjs --version

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/var/lib/roster
WORKDIR /app
# The programs are bundled; only what they load from node_modules at run time comes along:
# PGlite (the embedded database, with its WebAssembly), Redoc's standalone bundle and Swagger UI's
# bundle and stylesheet, and piscina (the pool of the threads templates render in, which starts
# them from a file of its own) with @napi-rs/nice (which lowers their priority).
COPY --from=build /src/dist ./dist
COPY --from=build /src/node_modules/@electric-sql/pglite ./node_modules/@electric-sql/pglite
COPY --from=build /src/node_modules/redoc/package.json ./node_modules/redoc/package.json
COPY --from=build /src/node_modules/redoc/bundles ./node_modules/redoc/bundles
COPY --from=build /src/node_modules/swagger-ui-dist/package.json ./node_modules/swagger-ui-dist/package.json
COPY --from=build /src/node_modules/swagger-ui-dist/swagger-ui-bundle.js ./node_modules/swagger-ui-dist/swagger-ui-bundle.js
COPY --from=build /src/node_modules/swagger-ui-dist/swagger-ui.css ./node_modules/swagger-ui-dist/swagger-ui.css
COPY --from=build /src/node_modules/piscina ./node_modules/piscina
COPY --from=build /src/node_modules/@napi-rs ./node_modules/@napi-rs
COPY --from=build /src/docker/roster ./docker/roster
RUN mkdir -p /var/lib/roster && chown node:node /var/lib/roster
USER node
EXPOSE 3000
ENTRYPOINT ["/bin/sh", "/app/docker/roster"]
CMD ["api"]
