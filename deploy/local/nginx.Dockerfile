# Stand-in for nginx:1.27 with Debian's nginx 1.22: at start, every /etc/nginx/templates/*.template is
# filled with envsubst into /etc/nginx/conf.d/ (only the variables NGINX_ENVSUBST_FILTER matches), as the
# official image's entrypoint does; logs to the console. Built by deploy/local-images.
ARG DEBIAN=mypcbench-local/debian:bookworm
FROM ${DEBIAN}
RUN apt-get update && apt-get install -y --no-install-recommends nginx-light gettext-base \
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/default \
    && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log \
    && printf '%s\n' '#!/bin/sh' 'set -e' \
       'names=$(env | cut -d= -f1 | grep -E "${NGINX_ENVSUBST_FILTER:-.}" || true)' \
       'defined=$(for n in $names; do printf "\${%s} " "$n"; done)' \
       'for t in /etc/nginx/templates/*.template; do [ -f "$t" ] || continue; out="/etc/nginx/conf.d/$(basename "$t" .template)"; envsubst "$defined" < "$t" > "$out"; echo "filled $t into $out"; done' \
       'exec "$@"' > /usr/local/bin/docker-entrypoint && chmod 755 /usr/local/bin/docker-entrypoint
EXPOSE 80 443
ENTRYPOINT ["docker-entrypoint"]
CMD ["nginx", "-g", "daemon off;"]
