# This project's image: the `volcano` command (scheduler, controllers, webhooks, nodes, serve) and
# `vcctl`, with the official Kubernetes client. Built and loaded into kind by scripts/e2e-kind.sh.
FROM python:3.11-slim
WORKDIR /src
COPY pyproject.toml README.md ./
COPY volcano ./volcano
RUN pip install --no-cache-dir '.[kube]' && rm -rf /src
WORKDIR /
USER 65532:65532
ENTRYPOINT ["volcano"]
