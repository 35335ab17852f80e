# Gatewright build, test and development targets. `make help` lists them.

KUBE_VERSION ?= 1.36.3
ETCD_VERSION ?= 3.6.16
CONTROLLER_GEN_VERSION ?= v0.23.0
GATEWAY_API_VERSION := $(shell go list -m -f '{{.Version}}' sigs.k8s.io/gateway-api)

BIN := $(CURDIR)/bin
TESTBIN := $(BIN)/k8s/$(KUBE_VERSION)
CONTROLLER_GEN := $(BIN)/controller-gen-$(CONTROLLER_GEN_VERSION)
GO_TEST_FLAGS ?=

export KUBEBUILDER_ASSETS := $(TESTBIN)

.DEFAULT_GOAL := help

##@ Use

.PHONY: run
run: testbin ## Run Gatewright on a local control plane (kube-apiserver + etcd), with the CRDs and samples installed.
	go run ./cmd/gatewright dev

.PHONY: demo
demo: testbin ## Play the provider/tenant story on a local control plane, checking every step (exits 0 only if all pass).
	go run ./cmd/gatewright demo

.PHONY: test
test: testbin ## Run every test, the envtest suites against a real kube-apiserver and etcd included.
	go test $(GO_TEST_FLAGS) ./...

.PHONY: conformance
conformance: testbin ## Run the Gateway API conformance suite, status checks only, on a local control plane; writes docs/conformance/report.yaml (RUN=<ShortName> runs one test).
	GATEWRIGHT_VERSION=$(VERSION) GATEWRIGHT_CONFORMANCE_RUN=$(RUN) go test -tags conformance -count=1 -timeout 30m -v ./test/conformance/ -run '^TestConformance$$'

.PHONY: bench
bench: testbin ## Measure the shipped controller against a purpose-built floor on N Gateways, each on a fresh control plane (N=100 STEADY=60s BENCH_FLAGS="-o json"); docs/operations.md#sizing.
	go run ./test/bench -gateways $(or $(N),100) -steady $(or $(STEADY),60s) $(BENCH_FLAGS)

.PHONY: bench-go
bench-go: ## Run the Go benchmarks of internal/... (values merge, rendering).
	go test ./internal/... -run '^$$' -bench . -benchmem

##@ Develop

.PHONY: build
build: ## Build bin/gatewright.
	CGO_ENABLED=0 go build -o $(BIN)/gatewright ./cmd/gatewright

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate the deepcopy functions of the API types.
	$(CONTROLLER_GEN) object paths=./apis/...

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the Gatewright CRDs into config/crd/bases and the controller's ClusterRole into config/rbac, and copy both into the Helm chart.
	$(CONTROLLER_GEN) crd paths=./apis/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=gatewright-controller paths=./controllers/... output:rbac:artifacts:config=config/rbac
	rm -f charts/gatewright/crds/*.yaml
	cp config/crd/bases/*.yaml charts/gatewright/crds/
	cp config/rbac/role.yaml charts/gatewright/files/controller-role.yaml

.PHONY: gateway-api-crds
gateway-api-crds: ## Copy the standard Gateway API CRDs of the version in go.mod into config/crd/gateway-api.
	rm -f config/crd/gateway-api/gateway.networking.k8s.io_*.yaml
	cp $$(go list -m -f '{{.Dir}}' sigs.k8s.io/gateway-api)/config/crd/standard/gateway.networking.k8s.io_*.yaml config/crd/gateway-api/
	rm -f config/crd/gateway-api/gateway.networking.k8s.io_vap_*.yaml
	chmod 644 config/crd/gateway-api/*.yaml
	echo "$(GATEWAY_API_VERSION)" > config/crd/gateway-api/VERSION

.PHONY: testbin
testbin: $(TESTBIN)/etcd $(TESTBIN)/kube-apiserver ## Build etcd and kube-apiserver for the tests into bin/k8s/ (only when missing).

$(TESTBIN)/etcd:
	hack/build-testbin.sh $(TESTBIN) $(ETCD_VERSION) $(KUBE_VERSION) etcd

$(TESTBIN)/kube-apiserver:
	hack/build-testbin.sh $(TESTBIN) $(ETCD_VERSION) $(KUBE_VERSION) kube-apiserver

$(CONTROLLER_GEN):
	GOBIN=$(BIN)/tmp go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	mv $(BIN)/tmp/controller-gen $@ && rmdir $(BIN)/tmp

##@ Ship

IMG ?= ghcr.io/gatewright/gatewright:dev
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: docker-build
docker-build: ## Build the container image $(IMG) (needs a Docker engine).
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$$(git rev-parse --short HEAD) -t $(IMG) .

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)
