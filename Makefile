# Gatewright build, test and development targets. `make help` lists them.

KUBE_VERSION ?= 1.36.3
ETCD_VERSION ?= 3.6.16
CONTROLLER_GEN_VERSION ?= v0.23.0
GATEWAY_API_VERSION := $(shell go list -m -f '{{.Version}}' sigs.k8s.io/gateway-api)

BIN := $(CURDIR)/bin
TESTBIN := $(BIN)/k8s/$(KUBE_VERSION)
CONTROLLER_GEN := $(BIN)/controller-gen-$(CONTROLLER_GEN_VERSION)
GATEWRIGHT := $(BIN)/gatewright
GATEWRIGHT_DEV := $(BIN)/gatewright-dev
GO_TEST_FLAGS ?= -timeout 25m

# What `gatewright --version` says.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

export KUBEBUILDER_ASSETS := $(TESTBIN)

.DEFAULT_GOAL := help

##@ Use

# The next steps `make run` prints call bin/gatewright, built beside bin/gatewright-dev.
.PHONY: run
run: testbin build build-dev ## Run Gatewright on a local control plane (kube-apiserver + etcd), with the CRDs and samples installed.
	$(GATEWRIGHT_DEV) dev

.PHONY: demo
demo: testbin build-dev ## Play the provider/tenant story on a local control plane, checking every step (exits 0 only if all pass).
	$(GATEWRIGHT_DEV) demo

.PHONY: install
install: ## Install gatewright, and kubectl-gatewright for `kubectl gatewright`, into $(go env GOBIN), else $(go env GOPATH)/bin, stamped with the version and commit from git.
	@echo "Installing gatewright $(VERSION) (commit $(COMMIT)). A first build compiles the Kubernetes libraries: several minutes on 2 cores; later builds take seconds."
	@CGO_ENABLED=0 hack/go-build-progress.sh "gatewright" install -ldflags "$(LDFLAGS)" ./cmd/gatewright
	@dir=$$(go env GOBIN); dir=$${dir:-$$(go env GOPATH)/bin}; \
	ln -sf gatewright "$$dir/kubectl-gatewright"; \
	ln -sf gatewright "$$dir/kubectl_complete-gatewright"; \
	echo "Installed $$dir/gatewright, and kubectl-gatewright and kubectl_complete-gatewright (links to it) for kubectl gatewright and its completion."; \
	case ":$$PATH:" in \
	*":$$dir:"*) ;; \
	*) echo "$$dir is not on your PATH; add it:"; echo "  export PATH=\"$$dir:\$$PATH\"" ;; \
	esac

.PHONY: test
test: testbin ## Run every test, the envtest suites against a real kube-apiserver and etcd included.
	go test $(GO_TEST_FLAGS) ./...

.PHONY: conformance
conformance: testbin ## Run the Gateway API conformance suite, status checks only, on a local control plane; writes test/conformance/report.yaml (RUN=<ShortName> runs one test; MODE=requests answers HTTP requests from the route table, as explain request does).
	GATEWRIGHT_VERSION=$(VERSION) GATEWRIGHT_CONFORMANCE_RUN=$(RUN) GATEWRIGHT_CONFORMANCE_MODE=$(MODE) go test -tags conformance -count=1 -timeout 30m -v ./test/conformance/ -run '^TestConformance$$'

.PHONY: bench
bench: testbin ## Measure the shipped controller against a purpose-built floor on N Gateways, each on a fresh control plane (N=100 STEADY=60s ROUNDS=1 BENCH_FLAGS="-o json"); docs/operations.md#sizing.
	go run ./test/bench -gateways $(or $(N),100) -steady $(or $(STEADY),60s) -rounds $(or $(ROUNDS),1) $(BENCH_FLAGS)

.PHONY: fuzz
fuzz: ## Fuzz each Fuzz target of internal/... for FUZZTIME (30s) in turn, stopping at the first failure (make test runs their seeds only).
	@for dir in $$(grep -rl --include='*_test.go' '^func Fuzz' internal | xargs -n1 dirname | sort -u); do \
		for fn in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$dir/*_test.go); do \
			echo "$$fn (./$$dir)"; \
			go test ./$$dir -run '^$$' -fuzz "^$$fn$$" -fuzztime $(or $(FUZZTIME),30s) || exit 1; \
		done; \
	done

.PHONY: bench-go
bench-go: ## Run the Go benchmarks of internal/... (values merge, rendering).
	go test ./internal/... -run '^$$' -bench . -benchmem

##@ Develop

.PHONY: build
build: ## Build bin/gatewright, stamped with the version and commit from git.
	@echo "Building bin/gatewright $(VERSION) (commit $(COMMIT)). A first build compiles the Kubernetes libraries: several minutes on 2 cores; later builds take seconds."
	@CGO_ENABLED=0 hack/go-build-progress.sh "bin/gatewright" build -ldflags "$(LDFLAGS)" -o $(GATEWRIGHT) ./cmd/gatewright

.PHONY: build-dev
build-dev: ## Build bin/gatewright-dev, which runs `dev` and `demo` for make run and make demo; it is not shipped.
	@CGO_ENABLED=0 hack/go-build-progress.sh "bin/gatewright-dev" build -o $(GATEWRIGHT_DEV) ./cmd/gatewright-dev

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate the deepcopy functions of the API types.
	$(CONTROLLER_GEN) object paths=./apis/...

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the Gatewright CRDs into config/crd/bases and the controller's ClusterRole into config/rbac, and copy both, and config/monitoring's dashboard and alerts, into the Helm chart.
	$(CONTROLLER_GEN) crd paths=./apis/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=gatewright-controller paths=./controllers/... output:rbac:artifacts:config=config/rbac
	rm -f charts/gatewright/crds/*.yaml
	cp config/crd/bases/*.yaml charts/gatewright/crds/
	cp config/rbac/role.yaml charts/gatewright/files/controller-role.yaml
	cp config/monitoring/dashboard.json config/monitoring/prometheusrule.yaml charts/gatewright/files/

.PHONY: gateway-api-crds
gateway-api-crds: ## Copy the standard Gateway API CRDs of the version in go.mod into config/crd/gateway-api.
	rm -f config/crd/gateway-api/gateway.networking.k8s.io_*.yaml
	cp $$(go list -m -f '{{.Dir}}' sigs.k8s.io/gateway-api)/config/crd/standard/gateway.networking.k8s.io_*.yaml config/crd/gateway-api/
	rm -f config/crd/gateway-api/gateway.networking.k8s.io_vap_*.yaml
	chmod 644 config/crd/gateway-api/*.yaml
	echo "$(GATEWAY_API_VERSION)" > config/crd/gateway-api/VERSION

# The script builds only what is missing, and prints nothing when nothing is.
.PHONY: testbin
testbin: ## Build etcd and kube-apiserver for the local control plane and the tests into bin/k8s/ (only when missing; about 10 minutes the first time).
	@hack/build-testbin.sh $(TESTBIN) $(ETCD_VERSION) $(KUBE_VERSION)

$(CONTROLLER_GEN):
	GOBIN=$(BIN)/tmp go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	mv $(BIN)/tmp/controller-gen $@ && rmdir $(BIN)/tmp

##@ Ship

# The image's name: the chart's repository and appVersion, which the chart and
# config/default run, so that a loaded archive runs as they are. Its labels and the
# binary's --version say the exact build (VERSION, REVISION).
IMAGE_REPOSITORY ?= $(shell sed -n 's/^  repository: //p' charts/gatewright/values.yaml)
IMAGE_TAG ?= $(shell sed -n 's/^appVersion: "\(.*\)"$$/\1/p' charts/gatewright/Chart.yaml)
IMG ?= $(IMAGE_REPOSITORY):$(IMAGE_TAG)
IMAGE_ARCH ?= $(shell go env GOARCH)
IMAGE_ARCHIVE ?= $(BIN)/gatewright-image.tar
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
# The image's creation time: the commit's, so that two builds of one commit have one digest.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

.PHONY: image
image: ## Build the controller image $(IMG) as an OCI archive, bin/gatewright-image.tar, with no container engine (docs/install.md: kind load image-archive, skopeo, crane).
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) go build -trimpath -ldflags "-s -w $(LDFLAGS)" -o $(BIN)/image/$(IMAGE_ARCH)/gatewright ./cmd/gatewright
	go run ./hack/image -binary $(BIN)/image/$(IMAGE_ARCH)/gatewright -arch $(IMAGE_ARCH) -version $(VERSION) -commit $(REVISION) -created $(SOURCE_DATE_EPOCH) -tag $(IMG) -o $(IMAGE_ARCHIVE)

.PHONY: krew
krew: ## Build the kubectl-gatewright archives of the krew manifest plugins/gatewright.yaml into bin/krew/, and the manifest with their sha256 (kubectl krew install --manifest=bin/krew/gatewright.yaml --archive=...).
	hack/krew.sh $(BIN)/krew $(VERSION) "$(LDFLAGS)"

.PHONY: docker-build
docker-build: ## Build the same image with a Docker engine, from the Dockerfile, as $(IMG) (its digest differs: the engine stamps its own times).
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) --build-arg REVISION=$(REVISION) -t $(IMG) .

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)
