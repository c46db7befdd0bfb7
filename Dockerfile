# syntax=docker/dockerfile:1
#
# Production image of the storefront BFF: the `bff` binary, the built React app and the
# default config. Needs BuildKit (default since Docker 23) for the cache mounts.
#
#   docker build -t bff .
#   docker run --rm -p 8080:8080 -p 9090:9090 --read-only --tmpfs /tmp \
#     -e BFF_ADMIN_TOKEN=... -e BFF_CONTENT_API_TOKEN=... -e BFF_SESSION_KEYS=... \
#     -e BFF_WEBHOOK_SECRET=... -e BFF_GEOCODER_KEY=... -e BFF_MAP_TILE_KEY=... \
#     -e BFF__UPSTREAMS__COMMERCE__BASE_URL=... -e BFF__UPSTREAMS__CONTENT__BASE_URL=... bff
#   docker run --rm bff check-config      # validate and print the effective config

# ---- web: the React storefront (Vite) -> /src/web/dist ---------------------------------
# Node 22 LTS: the major that make, .ci/run and .nvmrc pin (scripts/lib/node.sh; the npm it bundles
# installs the lockfile the same way).
FROM node:22-bookworm-slim AS web
WORKDIR /src/web
# Dependencies first, so source edits reuse the npm ci layer.
COPY web/package.json web/package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund
COPY web/ ./
RUN npm run build

# ---- build: the bff binary -> /out/bff ---------------------------------------------------
# The MSRV, as pinned in rust-toolchain.toml (scripts/rust-toolchain.sh links it if the image
# names its toolchain differently, instead of a download).
FROM rust:1.95.0-bookworm AS build
WORKDIR /src
# The whole workspace (cargo loads every member, also the sandbox the image leaves out). .dockerignore
# keeps target/, node_modules/, web/dist/ and .git/ out. The cache mounts keep the
# registry and the compiled dependencies between builds, so only changed crates rebuild.
COPY . .
# The commit in bff_build_info{commit}: `docker build --build-arg BFF_GIT_COMMIT=$(git rev-parse
# --short HEAD)`; "unknown" without it (.git is not in the build context).
ARG BFF_GIT_COMMIT=""
# --no-default-features: no embedded sandbox (SQLite, argon2, jsonwebtoken), which production
# refuses anyway; the `production` profile is release with the symbols stripped.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/usr/local/cargo/git \
    --mount=type=cache,target=/src/target,sharing=locked \
    bash scripts/rust-toolchain.sh \
    && cargo build --profile production --locked -p bff --no-default-features \
    && install -D -m 0755 target/production/bff /out/bff

# ---- runtime ----------------------------------------------------------------------------
# Distroless: glibc, libgcc, CA certificates (TLS to the upstreams) and nothing else: no shell,
# no package manager. The bff runs as a numeric non-root user (the k8s manifests' runAsUser).
FROM gcr.io/distroless/cc-debian12:nonroot AS runtime
WORKDIR /app
# Everything owned by root and read-only for the app: it writes nothing but /tmp.
COPY --from=build /out/bff /app/bff
COPY --from=web /src/web/dist /app/web/dist
COPY config/bff.toml /app/config/bff.toml

# Production defaults; any of them can be overridden with -e / the pod env.
# MALLOC_MMAP_THRESHOLD_ fixes glibc's mmap threshold at 1 MiB: an upload form's buffers (up to
# 21 MiB) go back to the system when freed, instead of the heap keeping them after glibc raised
# its threshold (bff/tests/oversized_bodies.rs measures the difference: 99 against 55 MiB).
ENV BFF__ENVIRONMENT=production \
    BFF__SERVER__LISTEN=0.0.0.0:8080 \
    BFF__ADMIN__LISTEN=0.0.0.0:9090 \
    BFF__SANDBOX__ENABLED=false \
    BFF__WEB__DIST_DIR=/app/web/dist \
    BFF__LOG__FORMAT=json \
    MALLOC_MMAP_THRESHOLD_=1048576

USER 10001:10001
# 8080: storefront, /api, /healthz.  9090: admin (/metrics, /healthz, /readyz).
EXPOSE 8080 9090
STOPSIGNAL SIGTERM

# `bff healthcheck`: GET /readyz on the admin listener, 2 s at most, exit 0 when it answers 200.
# (Kubernetes ignores HEALTHCHECK and uses the pod's probes.)
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
    CMD ["/app/bff", "healthcheck"]

ENTRYPOINT ["/app/bff"]
