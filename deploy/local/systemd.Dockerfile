# A bare Debian host for `deploy/compose-check --systemd`: systemd as init and docs/operating.md's step 1
# (the packages, the checkout in /srv/mypcbench, bin/setup); the check does the rest in the running
# container. Built from the repository's root with the host's network.
ARG DEBIAN=mypcbench-local/debian:bookworm
FROM ${DEBIAN}
RUN apt-get update && apt-get install -y --no-install-recommends systemd systemd-sysv dbus procps iproute2 curl \
        openssl gettext-base python3 python3-venv nginx-light postgresql redis-server rabbitmq-server \
    && rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d \
    && systemctl mask getty@tty1.service console-getty.service systemd-firstboot.service
# bin/setup before the rest of the checkout, so a change to the code does not install the packages again
COPY requirements.txt /srv/mypcbench/
COPY bin/setup /srv/mypcbench/bin/
RUN cd /srv/mypcbench && bin/setup
COPY . /srv/mypcbench
# the cluster was made during a build on the host's network, where 5432 may be taken: the host here has it
RUN sed -i 's/^port = .*/port = 5432/' /etc/postgresql/15/main/postgresql.conf
STOPSIGNAL SIGRTMIN+3
CMD ["/sbin/init"]
