# Stand-in for motoserver/moto:5.2.5: moto's server from PyPI (the version requirements-dev.txt pins) on the
# python stand-in; `moto_server` and `python` on PATH as in the official image. Built by deploy/local-images.
ARG PYTHON=mypcbench-local/python:3.11-bookworm
FROM ${PYTHON}
RUN pip install --no-cache-dir "moto[server]==5.2.5"
EXPOSE 5000
ENTRYPOINT ["moto_server"]
CMD ["-H", "0.0.0.0", "-p", "5000"]
