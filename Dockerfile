# superd in a container: the daemon runs in the foreground as a non-root user.
#   docker build -t superd .
#   docker run -d --name superd -v "$PWD/app:/app" superd
#   docker exec superd super start /app/ecosystem.yml
FROM node:20-bookworm-slim
ENV NODE_ENV=production SUPER_HOME=/home/node/.super
WORKDIR /opt/superd
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY bin ./bin
COPY lib ./lib
COPY config ./config
RUN ln -s /opt/superd/bin/super.js /usr/local/bin/super
USER node
WORKDIR /app
HEALTHCHECK --interval=15s --timeout=5s CMD ["super", "ping"]
# SIGTERM (docker stop) makes the daemon stop every app gracefully, then exit 0.
STOPSIGNAL SIGTERM
CMD ["super", "daemon"]
