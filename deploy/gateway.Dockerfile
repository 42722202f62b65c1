# syntax=docker/dockerfile:1
# The gateway sidecar. From the repository root: `docker build -f deploy/gateway.Dockerfile -t aduana-gateway .`
#   docker run -p 8080:8080 -p 8081:8081 -v aduana-data:/data aduana-gateway            (the service)
#   docker run --rm -v aduana-data:/data aduana-gateway token list --tenant default      (any `aduana` command)
# Three stages: build (TypeScript, with every dev dependency), deps (the gateway's production dependencies, pruned)
# and the image (Node, those dependencies, the build and the `aduana` command). Nothing of the scanner, the benchmarks
# or the tests is in it. scripts/deploy-images.test.ts runs these steps outside Docker and checks what they copy.

FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json ./
COPY shared/package.json shared/tsconfig.json shared/
COPY gateway/package.json gateway/tsconfig.json gateway/
COPY deploy/trim-workspaces.mjs deploy/
RUN node deploy/trim-workspaces.mjs shared gateway
# No install scripts: the compiler needs no native addon.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY shared/src shared/src
COPY gateway/src gateway/src
RUN npx tsc -b gateway

FROM node:22-bookworm-slim AS deps
WORKDIR /src
# re2 compiles from source where its prebuilt binary cannot be fetched (node-gyp: python3, make, g++); binutils strips
# the binary. This stage only.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ binutils && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY shared/package.json shared/
COPY gateway/package.json gateway/
COPY deploy/trim-workspaces.mjs deploy/prune-node-modules.mjs /opt/aduana-build/
RUN node /opt/aduana-build/trim-workspaces.mjs shared gateway
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund
COPY --from=build /src/shared/dist shared/dist
COPY --from=build /src/gateway/dist gateway/dist
RUN node /opt/aduana-build/prune-node-modules.mjs /src shared gateway && rm package-lock.json

FROM node:22-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /src ./
COPY scripts/aduana scripts/aduana.mjs scripts/use-node22.sh scripts/
COPY deploy/healthcheck.mjs ./
# `aduana` on PATH, as the docs use it; /data for the image's user (numeric, so Kubernetes can check runAsNonRoot).
RUN ln -s /app/scripts/aduana /usr/local/bin/aduana && mkdir -p /data && chown 1000:1000 /data
USER 1000:1000
VOLUME /data
EXPOSE 8080 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 CMD ["node", "/app/healthcheck.mjs", "gateway"]
ENTRYPOINT ["aduana"]
CMD ["gateway"]
