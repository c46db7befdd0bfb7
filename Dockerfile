# syntax=docker/dockerfile:1
#
# Production image of the storefront BFF: the `bff` binary, the built React app and the
# default config. Needs BuildKit (default since Docker 23) for the cache mounts. The project's own
# machines have no Docker engine: this file is linted and its bases checked there (make
# test-docker), not built. docs/SUPPLY-CHAIN.md has the release build, which adds an SBOM and
# provenance, and how to sign and verify the image by digest:
#
#   docker buildx build --sbom=true --provenance=mode=max \
#     --build-arg BFF_GIT_COMMIT=$(git rev-parse HEAD) --build-arg BFF_SOURCE=$(git remote get-url origin) \
#     -t <registry>/bff:<tag> --push .
#
#   docker run --rm -p 8080:8080 -p 9090:9090 --read-only --tmpfs /tmp \
#     -e BFF_ADMIN_TOKEN=... -e BFF_CONTENT_API_TOKEN=... -e BFF_SESSION_KEYS=... \
#     -e BFF_WEBHOOK_SECRET=... -e BFF_GEOCODER_KEY=... -e BFF_MAP_TILE_KEY=... \
#     -e BFF__UPSTREAMS__COMMERCE__BASE_URL=... -e BFF__UPSTREAMS__CONTENT__BASE_URL=... bff
#   docker run --rm bff check-config      # validate and print the effective config
#
# Every base is pinned by the digest of its multi-platform index; Renovate (renovate.json) bumps
# the digests where the registries are reachable. Each comment names where the digest was read.

# ---- web: the React storefront (Vite) -> /src/web/dist, the console -> /src/web/dist-console
# Node 26, the Active LTS: the major that make, .ci/run and .nvmrc pin (scripts/lib/node.sh; the npm
# it bundles installs the lockfile the same way). Digest: node:26-trixie-slim (Node 26.7.0, built
# 2026-08-25), from docker-library/repo-info, repos/node/remote/26-trixie-slim.md at 5f3f81e.
FROM node:26-trixie-slim@sha256:6bb4f9189ad2bcd57045f3feef2c6d27fd770c4a45dda53dacb1a7f9eb38c392 AS web
WORKDIR /src/web
# Dependencies first, so source edits reuse the npm ci layer.
COPY web/package.json web/package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund
COPY web/ ./
# The storefront, then the operators' console (its own build and folder: dist-console/).
RUN npm run build && npm run build:console

# ---- build: the bff binary -> /out/bff ---------------------------------------------------
# The MSRV, as pinned in rust-toolchain.toml; the image's toolchain is named by that version, so
# rustup uses it as it is (RUSTUP_TOOLCHAIN: without the file's extra components, which the
# build does not need). Digest: rust:1.95.0-trixie, from the Renovate pull request "update
# rust:1.95.0-trixie docker digest to f49565f" (jackin-project/jackin#458, 2026-05-26).
FROM rust:1.95.0-trixie@sha256:f49565f188ee00bc2a18dd418183f2c5f23ef7d6e691890517ed341a598f67c3 AS build
ENV RUSTUP_TOOLCHAIN=1.95.0
# cargo-auditable embeds the dependency list (crate names, versions, sources) in the binary, so
# scanners (cargo audit bin, trivy, grype, syft) read what is inside the image without its lockfile.
# This stage only: make and CI build without it.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    cargo install --locked --version 0.7.7 cargo-auditable
WORKDIR /src
# The whole workspace (cargo loads every member, also the sandbox the image leaves out). .dockerignore
# keeps target/, node_modules/, web/dist/ and .git/ out. The cache mounts keep the
# registry and the compiled dependencies between builds, so only changed crates rebuild.
COPY . .
# The commit in `bff --version` and bff_build_info{commit}: `docker build --build-arg
# BFF_GIT_COMMIT=$(git rev-parse HEAD)`; "unknown" without it (.git is not in the build context).
ARG BFF_GIT_COMMIT=""
# --no-default-features: no embedded sandbox (SQLite, argon2, jsonwebtoken), which production
# refuses anyway; the `production` profile is release with the symbols stripped.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/usr/local/cargo/git \
    --mount=type=cache,target=/src/target,sharing=locked \
    cargo auditable build --profile production --locked -p bff --no-default-features \
    && install -D -m 0755 target/production/bff /out/bff

# ---- runtime ----------------------------------------------------------------------------
# Distroless on Debian 13: glibc, libgcc, CA certificates (TLS to the upstreams) and nothing else:
# no shell, no package manager. The bff runs as a numeric non-root user (the k8s manifests'
# runAsUser). Digest: gcr.io/distroless/cc-debian13:nonroot as resolved on 2026-08-24 and again on
# 2026-09-29 (mechubsec/rustunifimcp, Dockerfile at 355369b); check it with `docker buildx
# imagetools inspect` before a release, and let Renovate move it.
FROM gcr.io/distroless/cc-debian13:nonroot@sha256:e792ab3d241a468a4fd7519ddbbebe66b49b5f365771716ea688ad40b6c6f1c2 AS runtime
# OCI annotations: where the image comes from and what it holds. The version is bff/Cargo.toml's
# (make test-docker checks that they agree); the revision and the source repository are build
# arguments (`--build-arg BFF_SOURCE=$(git remote get-url origin)`), which the build stage's
# BFF_GIT_COMMIT also sets.
ARG BFF_GIT_COMMIT=""
ARG BFF_SOURCE=""
LABEL org.opencontainers.image.title="bff" \
      org.opencontainers.image.description="The storefront's backend-for-frontend, with its React storefront" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.revision="${BFF_GIT_COMMIT}" \
      org.opencontainers.image.source="${BFF_SOURCE}"
WORKDIR /app
# Everything owned by root and read-only for the app: it writes nothing but /tmp.
COPY --from=build /out/bff /app/bff
COPY --from=web /src/web/dist /app/web/dist
COPY --from=web /src/web/dist-console /app/web/dist-console
COPY config/bff.toml /app/config/bff.toml

# Production defaults; any of them can be overridden with -e / the pod env.
# MALLOC_MMAP_THRESHOLD_ fixes glibc's mmap threshold at 1 MiB: an upload form's buffers (up to
# 21 MiB) go back to the system when freed, instead of the heap keeping them after glibc raised
# its threshold (bff/tests/it/oversized_bodies.rs measures the difference: 99 against 55 MiB).
ENV BFF__ENVIRONMENT=production \
    BFF__SERVER__LISTEN=0.0.0.0:8080 \
    BFF__ADMIN__LISTEN=0.0.0.0:9090 \
    BFF__SANDBOX__ENABLED=false \
    BFF__WEB__DIST_DIR=/app/web/dist \
    BFF__WEB__CONSOLE_DIR=/app/web/dist-console \
    BFF__LOG__FORMAT=json \
    MALLOC_MMAP_THRESHOLD_=1048576

USER 10001:10001
# 8080: storefront, /api, /healthz.  9090: admin (/metrics, /healthz, /readyz, /admin, the
# console at /admin/console/).
EXPOSE 8080 9090
STOPSIGNAL SIGTERM

# `bff healthcheck`: GET /readyz on the admin listener, 2 s at most (--timeout), exit 0 when it answers 200.
# (Kubernetes ignores HEALTHCHECK and uses the pod's probes.)
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
    CMD ["/app/bff", "healthcheck"]

ENTRYPOINT ["/app/bff"]
