# gw in a container (spec "Process and configuration"): serves on 0.0.0.0:5632 with its
# config and data under /data. First run writes /data/gateway.toml (fresh admin_token and
# [keys.default]); the store lives in /data/data (data_dir = "data", relative to the config).
#   docker build -t gw .
#   docker run -d --name gw -p 5632:5632 -v gw-data:/data gw
#   docker exec gw cat /data/gateway.toml        # the generated admin_token and key
#   docker exec -e GW_URL=http://127.0.0.1:5632 -e GW_ADMIN_TOKEN=sk-… gw node cli/gw.js providers list
FROM node:24-slim

ENV NODE_ENV=production
WORKDIR /app

# dependencies first: this layer is rebuilt only when the lockfile changes
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# the app runs from its TypeScript sources (Node 24 strips types); root-owned, read-only for the user
COPY cli ./cli
COPY core ./core
COPY plugins ./plugins
COPY ui ./ui

RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 5632

HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:5632/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

CMD ["node", "cli/gw.js", "serve", "--config", "/data/gateway.toml", "--bind", "0.0.0.0:5632"]
