# superd in a container: `super run` in the foreground on a mounted ecosystem file.
#
#   docker build -t superd .
#   docker run --rm -p 3000:3000 -e HOST=0.0.0.0 -v "$PWD/examples/hello:/app:ro" superd
#   docker exec <container> super ls
#
# The ecosystem file is /app/ecosystem.yml by default (the apps' code usually sits beside
# it); give another path as the command: `docker run ... superd /app/other.yml`.
FROM node:20-bookworm-slim

# tini (Debian's package): PID 1 must reap orphaned processes, and Node cannot.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/superd
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY bin ./bin
COPY lib ./lib
COPY config ./config
COPY examples ./examples
RUN ln -s /opt/superd/bin/super.js /usr/local/bin/super

# Not root: the node image's own unprivileged user. SUPER_HOME holds the control socket
# (`docker exec ... super ls` finds it through this variable) and the log files.
ENV NODE_ENV=production SUPER_HOME=/home/node/.super
USER node
WORKDIR /app

# The daemon answers on its control socket: healthy. Apps' own health is for the
# orchestrator's HTTP probes (README "Running on many hosts").
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 CMD ["super", "ping"]

# SIGTERM (docker stop) stops every app gracefully; give docker stop a --time longer than
# the largest drain_timeout + kill_timeout.
STOPSIGNAL SIGTERM
ENTRYPOINT ["tini", "--", "super", "run"]
CMD ["/app/ecosystem.yml"]
