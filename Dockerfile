# syntax=docker/dockerfile:1
# Guichet's container image for people with Docker: the same image as
# `make image` (tools/image, which needs no daemon), built from source.
# test/deploy/dockerfile_test.go keeps the final stage's base, user,
# entrypoint, command, environment, ports, volume and labels equal to those
# of dist/guichet-image.tar; its files are written by the same tool.
#
#   docker build \
#     --build-arg VERSION=$(git describe --always --dirty) \
#     --build-arg REVISION=$(git rev-parse HEAD) \
#     --build-arg SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) \
#     --build-arg CREATED=$(date -u -d @$(git log -1 --format=%ct) +%Y-%m-%dT%H:%M:%SZ) \
#     -t guichet .
ARG VERSION=dev
ARG REVISION=unknown
ARG SOURCE=https://github.com/guichet/guichet
ARG SOURCE_DATE_EPOCH=0
ARG CREATED=1970-01-01T00:00:00Z

# The SPA (web/dist), which the binary embeds.
FROM node:20-bookworm AS web
WORKDIR /src
COPY api/ api/
COPY web/ web/
RUN cd web && npm ci --no-audit --no-fund && npm run build

# The static binary, then the image's files (tools/image rootfs).
FROM golang:1.26-bookworm AS build
ARG VERSION
ARG REVISION
ARG SOURCE
ARG SOURCE_DATE_EPOCH
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=web /src/web/dist/ web/dist/
RUN CGO_ENABLED=0 go build -buildvcs=false -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/guichet ./cmd/guichet
RUN cd tools && go run ./image rootfs --binary /out/guichet \
	--certs /etc/ssl/certs/ca-certificates.crt --certs-version "$(dpkg-query -W -f='${Version}' ca-certificates)" \
	--npm-lock ../web/package-lock.json \
	--version "${VERSION}" --revision "${REVISION}" --source "${SOURCE}" --epoch "${SOURCE_DATE_EPOCH}" --out /out/rootfs

FROM scratch
ARG VERSION
ARG REVISION
ARG SOURCE
ARG CREATED
# Root's files (the binary, passwd, group, CA bundle, SBOM, /tmp), then
# /data, the user's.
COPY --from=build --chown=0:0 /out/rootfs/ /
COPY --from=build --chown=65532:65532 /out/rootfs-guichet/ /
USER 65532:65532
WORKDIR /data
ENV GUICHET_ADDR=:8080 \
	GUICHET_ADMIN_ADDR=:9090 \
	GUICHET_DATA_DIR=/data
EXPOSE 8080/tcp 9090/tcp
VOLUME /data
STOPSIGNAL SIGTERM
LABEL org.opencontainers.image.title="guichet" \
	org.opencontainers.image.description="Guichet, the customer account portal: one static binary serving the SPA and its API" \
	org.opencontainers.image.licenses="Apache-2.0" \
	org.opencontainers.image.source="${SOURCE}" \
	org.opencontainers.image.version="${VERSION}" \
	org.opencontainers.image.revision="${REVISION}" \
	org.opencontainers.image.created="${CREATED}"
ENTRYPOINT ["/guichet"]
CMD ["serve"]
