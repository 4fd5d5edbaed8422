# Stand-in for the postgres image with Debian's PostgreSQL 15 (bookworm has no 16): the entrypoint honours
# POSTGRES_PASSWORD, POSTGRES_USER, POSTGRES_DB and PGDATA (/var/lib/postgresql/data) as the official one
# does; pg_isready on PATH for the healthcheck. Built by deploy/local-images.
ARG DEBIAN=mypcbench-local/debian:bookworm
FROM ${DEBIAN}
COPY postgres-entrypoint /usr/local/bin/docker-entrypoint
RUN chmod 755 /usr/local/bin/docker-entrypoint && mkdir -p /etc/postgresql-common \
    && echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf \
    && apt-get update && apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
    && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint"]
CMD ["postgres"]
