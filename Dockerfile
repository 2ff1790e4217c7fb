# superd in a container: `super run` in the foreground on a mounted ecosystem file.
#
#   docker build -t superd .
#   docker run --rm -p 3000:3000 -e HOST=0.0.0.0 -v "$PWD/examples/hello:/app:ro" superd
#   docker exec <container> super ls
#
# The ecosystem file is /app/ecosystem.yml by default (the apps' code usually sits beside
# it); give another path as the command: `docker run ... superd /app/other.yml`.
# Node 24, the current LTS line (Node 20 reached its end of life on 2026-04-30), on Debian
# 13 (trixie). package.json "engines" says which Node lines superd supports.
FROM node:24-trixie-slim

ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="superd" \
      org.opencontainers.image.description="A small, fast process supervisor and cluster manager daemon for Node.js" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.source="https://github.com/superd-dev/superd" \
      org.opencontainers.image.url="https://github.com/superd-dev/superd#readme" \
      org.opencontainers.image.documentation="https://github.com/superd-dev/superd#containers-super-run"

# tini (Debian's package): PID 1 must reap orphaned processes, and Node cannot.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/superd
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
# What runs, nothing else: no examples/, tests, benches or docs in the image (.dockerignore
# keeps them out of the build context too).
COPY bin ./bin
COPY lib ./lib
COPY config ./config
RUN ln -s /opt/superd/bin/super.js /usr/local/bin/super

# Not root: the node image's own unprivileged user. SUPER_HOME holds the control socket
# (`docker exec ... super ls` finds it through this variable) and the log files.
ENV NODE_ENV=production SUPER_HOME=/home/node/.super
USER node
WORKDIR /app

# The daemon answers on its control socket: healthy. Apps' own health is for the
# orchestrator's HTTP probes (docs/operations.md "Running on many hosts").
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 CMD ["super", "ping"]

# SIGTERM (docker stop) stops every app gracefully; give docker stop a --time longer than
# the largest drain_timeout + kill_timeout.
STOPSIGNAL SIGTERM
ENTRYPOINT ["tini", "--", "super", "run"]
CMD ["/app/ecosystem.yml"]
