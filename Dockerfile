# gw in a container (spec "Process and configuration"): serves on 0.0.0.0:5632 with its
# config and data under /data. First run writes /data/gateway.toml (fresh admin_token and
# [keys.default]); the store lives in /data/data (data_dir = "data", relative to the config).
#   docker build -t gw .
#   docker run -d --name gw -p 5632:5632 -v gw-data:/data gw
#   docker exec gw cat /data/gateway.toml        # the generated admin_token and key
#   docker exec -e GW_URL=http://127.0.0.1:5632 -e GW_ADMIN_TOKEN=sk-… gw node cli/gw.js providers list

# build: TypeScript compiled to dist/ (the image runs compiled JavaScript: no type
# stripping at run time, about 30 MB less resident memory)
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY cli ./cli
COPY core ./core
COPY lib ./lib
COPY server ./server
COPY mcp ./mcp
COPY plugins ./plugins
COPY protocols ./protocols
COPY sdk ./sdk
RUN npx tsc -p tsconfig.build.json

FROM node:24-slim

ENV NODE_ENV=production
WORKDIR /app

# dependencies first: this layer is rebuilt only when the lockfile changes; scripts are
# skipped (no build tools here) but LevelDB's native binding is fetched from its prebuilds
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm rebuild classic-level && npm cache clean --force

# jemalloc: gw serve preloads it when present (cli/heap.ts); glibc's malloc let LevelDB's
# threads fragment the heap under a steady cache churn
RUN apt-get update && apt-get install -y --no-install-recommends libjemalloc2 && rm -rf /var/lib/apt/lists/*

# root-owned, read-only for the user
COPY --from=build /app/dist ./dist
COPY cli/gw.js ./cli/gw.js
COPY ui ./ui

RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 5632

HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:5632/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

CMD ["node", "cli/gw.js", "serve", "--config", "/data/gateway.toml", "--bind", "0.0.0.0:5632"]
