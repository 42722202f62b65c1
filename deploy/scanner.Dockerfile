# syntax=docker/dockerfile:1
# The site assessment service, with Debian's Chromium for rendered-page observations. From the repository root:
#   docker build -f deploy/scanner.Dockerfile -t aduana-scanner .
#   docker run -p 8082:8082 -v scanner-data:/data aduana-scanner
# The same three stages as deploy/gateway.Dockerfile; nothing of the gateway, the benchmarks or the tests is in it.

FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json ./
COPY shared/package.json shared/tsconfig.json shared/
COPY scanner/package.json scanner/tsconfig.json scanner/
COPY deploy/trim-workspaces.mjs deploy/
RUN node deploy/trim-workspaces.mjs shared scanner
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY shared/src shared/src
COPY scanner/src scanner/src
RUN npx tsc -b scanner

FROM node:22-bookworm-slim AS deps
WORKDIR /src
COPY package.json package-lock.json ./
COPY shared/package.json shared/
COPY scanner/package.json scanner/
COPY deploy/trim-workspaces.mjs deploy/prune-node-modules.mjs /opt/aduana-build/
RUN node /opt/aduana-build/trim-workspaces.mjs shared scanner
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund
COPY --from=build /src/shared/dist shared/dist
COPY --from=build /src/scanner/dist scanner/dist
RUN node /opt/aduana-build/prune-node-modules.mjs /src shared scanner && rm package-lock.json

FROM node:22-bookworm-slim
# Chromium (SCANNER_CHROMIUM_PATH's default, /usr/bin/chromium) and fonts for the pages it renders and screenshots.
RUN apt-get update && apt-get install -y --no-install-recommends chromium fonts-liberation && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /src ./
COPY scripts/aduana scripts/aduana.mjs scripts/use-node22.sh scripts/
COPY deploy/healthcheck.mjs ./
RUN ln -s /app/scripts/aduana /usr/local/bin/aduana && mkdir -p /data && chown 1000:1000 /data
USER 1000:1000
VOLUME /data
EXPOSE 8082
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 CMD ["node", "/app/healthcheck.mjs", "scanner"]
ENTRYPOINT ["aduana"]
CMD ["scanner"]
