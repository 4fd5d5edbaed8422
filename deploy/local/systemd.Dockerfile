# A bare Debian host for `deploy/compose-check --systemd`: systemd as init and docs/operating.md's step 1
# (the packages, the checkout in /srv/mypcbench, bin/setup); the check does the rest in the running
# container. Built from the repository's root with the host's network.
ARG DEBIAN=mypcbench-local/debian:bookworm
FROM ${DEBIAN}
RUN apt-get update && apt-get install -y --no-install-recommends systemd systemd-sysv dbus procps iproute2 curl \
        openssl gettext-base python3 python3-venv nginx-light postgresql redis-server rabbitmq-server \
    && rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d \
    && systemctl mask getty@tty1.service console-getty.service systemd-firstboot.service
COPY . /srv/mypcbench
RUN cd /srv/mypcbench && rm -rf .venv var && bin/setup
STOPSIGNAL SIGRTMIN+3
CMD ["/sbin/init"]
