# Stand-in for redis:7 with Debian's Redis 7.0: runs as the redis user in /data (the volume), and, as the
# official image does when no configuration file is given, with protected mode off so other containers
# reach it; redis-cli on PATH for the healthcheck. Built by deploy/local-images.
ARG DEBIAN=mypcbench-local/debian:bookworm
FROM ${DEBIAN}
RUN apt-get update && apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* && mkdir -p /data && chown redis:redis /data \
    && printf '%s\n' '#!/bin/sh' 'set -e' \
       'if [ "$1" = redis-server ]; then chown -R redis:redis /data; set -- "$@" --protected-mode no; exec runuser -u redis -- "$@"; fi' \
       'exec "$@"' > /usr/local/bin/docker-entrypoint && chmod 755 /usr/local/bin/docker-entrypoint
WORKDIR /data
VOLUME /data
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint"]
CMD ["redis-server"]
