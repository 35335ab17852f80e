# The image `make image` builds, for a Docker engine (make docker-build): the same files
# (hack/image -rootfs writes the CA bundle and /etc/passwd that `make image` puts into its
# layer), binary build, user, entrypoint and labels. Only the digest differs: the engine
# stamps its own times and history, where `make image` uses the commit's time.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
    -o /rootfs/gatewright ./cmd/gatewright \
 && go run ./hack/image -rootfs /rootfs

FROM scratch
COPY --from=build /rootfs/ /
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="https://github.com/gatewright/gatewright"
USER 65532:65532
WORKDIR /
ENTRYPOINT ["/gatewright"]
