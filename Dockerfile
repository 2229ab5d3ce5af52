# apidex in a container: `docker build -t apidex .`, then
#   docker run --rm -v "$PWD/specs:/data/specs:ro" apidex index /data/specs --db /data/apidex.db
#   docker run --rm -p 8080:8080 -v apidex-data:/data apidex
# The build stage makes the Debian package (make deb); the runtime stage installs it with
# apt, which brings exactly its Depends (the runtime libraries), and runs as a non-root user.

FROM debian:12-slim AS build
WORKDIR /src
COPY scripts/deps.sh scripts/deps.sh
RUN bash scripts/deps.sh --build && rm -rf /var/lib/apt/lists/*
COPY . .
RUN make deb JOBS="$(nproc)" && cp build-deb/apidex_*.deb /apidex.deb

FROM debian:12-slim
COPY --from=build /apidex.deb /tmp/apidex.deb
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends /tmp/apidex.deb \
 && rm -rf /var/lib/apt/lists/* /tmp/apidex.deb \
 && useradd --system --create-home --home-dir /data --shell /usr/sbin/nologin apidex
USER apidex
WORKDIR /data
ENV APIDEX_DB=/data/apidex.db
EXPOSE 8080
ENTRYPOINT ["apidex"]
# listens on every interface of the container (--allow-remote); set APIDEX_TOKEN (or
# --token-file) to require a bearer token
CMD ["serve", "--listen", "0.0.0.0:8080", "--allow-remote"]
