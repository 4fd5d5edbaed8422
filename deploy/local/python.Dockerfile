# Stand-in for python:3.11-slim-bookworm, from Debian's python3 (3.11): `python` and `pip` on PATH from a
# virtual environment, as the official image has them in /usr/local/bin. Built by deploy/local-images.
ARG DEBIAN=mypcbench-local/debian:bookworm
FROM ${DEBIAN}
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv \
    && python3 -m venv /usr/local/python && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/local/python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
CMD ["python3"]
