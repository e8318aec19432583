# One image for every Vigil app; the command picks the app (node dist/<app>.js).
#
# Build stage: every dependency (the console and the server bundles are built with dev tools), then
# the script runtimes from their committed lockfiles, then only the production dependencies kept.
# Node 24, the current LTS (the suites also run on 20 and 22: test/platform/node-versions.test.ts).
FROM node:24-bookworm-slim AS build
# On Node 24 the SQLite driver is better-sqlite3 13 (Node-API, binaries in the package); the optional
# 12.x, for Node 20, compiles when no prebuilt binary can be fetched: python3, make and g++.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# node-gyp builds against the headers this Node ships (/usr/local/include/node), never downloads them.
ENV npm_package_config_node_gyp_nodedir=/usr/local
COPY package.json package-lock.json .npmrc tsconfig.json ./
COPY scripts ./scripts
COPY apps ./apps
COPY libs ./libs
COPY schemas ./schemas
COPY runtimes ./runtimes
# Installing runs `npm run build` (the prepare script): every app compiled into dist/, the console too.
RUN npm ci --no-audit --no-fund
# The runtimes are baked in, so runners need no registry at start (VIGIL_RUNTIMES_INSTALL=false).
ENV VIGIL_RUNTIMES_DIR=/app/.runtimes
RUN npm run runtimes:install
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
# Chromium drives scripts' pages and its headless shell BROWSER checks (a quarter of the CPU per
# run); bubblewrap is the script sandbox (with the coreutils timeout its launcher uses). Debian's
# packages, as on the machines Vigil is tested on.
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium chromium-headless-shell bubblewrap ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app /app
ENV NODE_ENV=production \
  CHROMIUM_PATH=/usr/bin/chromium \
  VIGIL_RUNTIMES_DIR=/app/.runtimes \
  VIGIL_RUNTIMES_INSTALL=false
# Most apps run as node. The runner and the API run script checks, and the sandbox needs root to
# give each run a host uid, cgroups and namespaces of its own: docker-compose.yml runs those two
# as root with the privileges bubblewrap needs (without them, script checks fail with "sandbox
# unavailable" and /ready says so; they never run unsandboxed).
USER node
# node is PID 1's only child of the init Docker adds with --init, or PID 1 itself: SIGTERM reaches it.
CMD ["node", "dist/standalone.js"]
