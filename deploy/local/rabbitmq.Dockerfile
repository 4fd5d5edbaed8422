# Stand-in for rabbitmq:3.13 with Debian's RabbitMQ 3.10: the guest user may connect from other containers
# (as the official image allows), logs on the console, data in /var/lib/rabbitmq (the volume);
# rabbitmq-diagnostics on PATH for the healthcheck. Built by deploy/local-images.
ARG DEBIAN=mypcbench-local/debian:bookworm
FROM ${DEBIAN}
RUN apt-get update && apt-get install -y --no-install-recommends rabbitmq-server \
    && rm -rf /var/lib/apt/lists/* \
    && printf '%s\n' 'loopback_users.guest = false' 'listeners.tcp.default = 5672' 'log.console = true' \
       'log.file = false' > /etc/rabbitmq/rabbitmq.conf \
    && printf '%s\n' '#!/bin/sh' 'set -e' \
       'chown -R rabbitmq:rabbitmq /var/lib/rabbitmq /var/log/rabbitmq' \
       'if [ "$1" = rabbitmq-server ]; then exec runuser -u rabbitmq -- /usr/lib/rabbitmq/bin/rabbitmq-server; fi' \
       'exec "$@"' > /usr/local/bin/docker-entrypoint && chmod 755 /usr/local/bin/docker-entrypoint
VOLUME /var/lib/rabbitmq
EXPOSE 5672
ENTRYPOINT ["docker-entrypoint"]
CMD ["rabbitmq-server"]
