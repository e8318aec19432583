# One image for every Vigil app; the command picks the app.
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY apps ./apps
COPY libs ./libs
COPY schemas ./schemas
COPY tsconfig.json ./
ENV NODE_ENV=production
USER node
CMD ["npx", "tsx", "apps/standalone/src/main.ts"]
