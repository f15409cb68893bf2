# Presspack in a container: `docker build -t presspack .` then
# `docker run -p 8080:8080 -v presspack-data:/var/lib/presspack -e PRESSPACK_BASE_URL=https://print.example.com presspack`
# (or set PRESSPACK_REDIS_URL to keep the state in Redis). See docs/operations.md.

FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
# rust-toolchain.toml pins the toolchain and names the wasm target the build compiles the engine for.
# The image ships the binary stripped (no debug info, no symbol table: 56.9 MiB instead of
# 122), which stays in this stage as presspack.debug, linked by name (.gnu_debuglink):
# put it beside the binary and backtraces name functions again (and files and lines in
# Presspack's own crates), or give it to a debugger or addr2line.
RUN rustup show active-toolchain && cargo build --release --locked -p presspack \
 && objcopy --only-keep-debug target/release/presspack target/release/presspack.debug \
 && objcopy --strip-all --add-gnu-debuglink=target/release/presspack.debug target/release/presspack
# The binary carries the fonts and word lists of fonts/; their licences (and the code's)
# travel beside it.
RUN mkdir -p /licences/fonts && cp LICENSE-MIT LICENSE-APACHE /licences/ \
 && cd fonts && find . -type f ! -name '*.ttf' ! -name '*.otf' ! -name '*.dict' -exec cp --parents {} /licences/fonts/ \;

FROM debian:bookworm-slim
# The system roots verify https image imports; the server does not start without them.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/presspack presspack \
 && mkdir -p /var/lib/presspack \
 && chown presspack /var/lib/presspack
COPY --from=build /src/target/release/presspack /usr/local/bin/presspack
COPY --from=build /licences /usr/share/doc/presspack
USER presspack
WORKDIR /var/lib/presspack
ENV PRESSPACK_LISTEN=0.0.0.0:8080 \
    PRESSPACK_DATA_DIR=/var/lib/presspack
VOLUME /var/lib/presspack
EXPOSE 8080
# SIGTERM finishes the requests in flight, then exits.
STOPSIGNAL SIGTERM
CMD ["presspack", "serve"]
