# One image for every Vigil app; the command picks the app (node dist/<app>.js).
FROM node:20-bookworm-slim
# better-sqlite3 compiles when no prebuilt binary can be fetched: python3, make and g++.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# node-gyp builds against the headers this Node ships (/usr/local/include/node), never downloads them.
ENV npm_package_config_node_gyp_nodedir=/usr/local
COPY package.json package-lock.json .npmrc tsconfig.json ./
COPY scripts ./scripts
COPY apps ./apps
COPY libs ./libs
COPY schemas ./schemas
# Installing runs `npm run build` (the prepare script): every app compiled into dist/.
RUN npm ci --omit=dev --no-audit --no-fund
ENV NODE_ENV=production
USER node
# node is PID 1's only child of the init Docker adds with --init, or PID 1 itself: SIGTERM reaches it.
CMD ["node", "dist/standalone.js"]
