# Build: make docker-build (needs a Docker engine).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
    -o /out/gatewright ./cmd/gatewright

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gatewright /gatewright
USER 65532:65532
ENTRYPOINT ["/gatewright"]
