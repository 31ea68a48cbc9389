# otelcol-governance: build, run and test an OCB-built collector distribution.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

# One collector release throughout (see builder-config.yaml).
OCB_VERSION           ?= v0.165.0
GOLANGCI_LINT_VERSION ?= v2.15.0

ROOT       := $(abspath .)
BIN        := $(ROOT)/bin
BUILD      := $(ROOT)/_build
OCB        := $(BIN)/builder-$(OCB_VERSION)
GOLANGCI   := $(BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
MDATAGEN   := $(BIN)/mdatagen
COLLECTOR  := $(BUILD)/otelcol-governance
OTELGOV    := $(BUILD)/otelgov
SEMCONV_DIR ?= $(ROOT)/../shared/semconv/v1.44.0

# The collector is rebuilt when a non-test Go source of the root module changes.
GO_SOURCES := $(shell find . -name '*.go' -not -name '*_test.go' -not -path './_build/*' -not -path './testbench/_build/*' -not -path './bin/*' -not -path './internal/tools/*') go.mod go.sum

.PHONY: build run test test-deps test-unit test-e2e lint fmt generate docs bench baseline floor loadtest image manifestlint clean

## build: install the pinned OCB into ./bin and build _build/otelcol-governance and _build/otelgov
build: $(COLLECTOR) $(OTELGOV)

$(OCB):
	mkdir -p $(BIN)
	GOBIN=$(BIN) go install go.opentelemetry.io/collector/cmd/builder@$(OCB_VERSION)
	mv $(BIN)/builder $@

$(COLLECTOR): $(OCB) builder-config.yaml $(GO_SOURCES)
	$(OCB) --config builder-config.yaml
	touch $@

# otelgov: static (the image is scratch), stripped like the OCB build.
$(OTELGOV): $(GO_SOURCES)
	mkdir -p $(BUILD)
	CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o $@ ./cmd/otelgov

## run: build, then run the collector on the embedded default config
run: build
	$(COLLECTOR) --config distribution/config.yaml

## test: the whole suite: the linter (with the import rules), unit tests, then end-to-end tests against the built binary
test: lint
	$(MAKE) test-deps test-unit test-e2e

# Debian packages the tests run for real: prometheus (remote-write receiver) and
# promtool (alert rules), skopeo (reads the image tarball), CA certificates
# (baked into the image). Installed when missing; needs root and apt.
TEST_PACKAGES := prometheus skopeo ca-certificates
test-deps:
	if command -v prometheus >/dev/null && command -v promtool >/dev/null \
	   && command -v skopeo >/dev/null && [ -f /etc/ssl/certs/ca-certificates.crt ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
	  echo "the tests need: $(TEST_PACKAGES); install them (apt-get install $(TEST_PACKAGES))" >&2; exit 1; fi; \
	apt-get update -qq; \
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(TEST_PACKAGES) >/dev/null

test-unit:
	go test -count=1 ./...

test-e2e: build
	go test -count=1 -tags e2e -timeout 20m ./e2e/...
	go test -count=1 -tags e2e -short -timeout 10m ./testbench/...

$(GOLANGCI):
	mkdir -p $(BIN)
	GOBIN=$(BIN) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(BIN)/golangci-lint $@

## lint: golangci-lint v2 (pinned), config in .golangci.yaml
lint: $(GOLANGCI)
	$(GOLANGCI) run --build-tags e2e ./...

## fmt: gofumpt + goimports through golangci-lint
fmt: $(GOLANGCI)
	$(GOLANGCI) fmt ./...

$(MDATAGEN): internal/tools/go.mod internal/tools/go.sum
	mkdir -p $(BIN)
	cd internal/tools && go build -o $(MDATAGEN) go.opentelemetry.io/collector/cmd/mdatagen

## generate: mdatagen for every component, the embedded registry from SEMCONV_DIR, and the CLI reference
generate: $(MDATAGEN)
	go generate ./...
	go run ./cmd/registrygen -semconv $(SEMCONV_DIR) -out registry/embedded_gen.go
	$(MAKE) docs

## docs: the otelgov CLI reference, docs/otelgov/*.md, from the cobra command tree (cobra/doc);
## cmd/otelgov's TestCLIReference fails in make test when the pages are out of date
docs:
	go test -count=1 -run '^TestCLIReference$$' ./cmd/otelgov -args -update-docs

BASELINE_OCB_VERSION ?= v0.161.0
BASELINE_OCB := $(BIN)/builder-$(BASELINE_OCB_VERSION)
BASELINE     := $(ROOT)/_baseline/otelcol-baseline

$(BASELINE_OCB):
	mkdir -p $(BIN)/.ocb-$(BASELINE_OCB_VERSION)
	GOBIN=$(BIN)/.ocb-$(BASELINE_OCB_VERSION) go install go.opentelemetry.io/collector/cmd/builder@$(BASELINE_OCB_VERSION)
	mv $(BIN)/.ocb-$(BASELINE_OCB_VERSION)/builder $@

$(BASELINE): $(BASELINE_OCB) baseline/builder-config.yaml
	$(BASELINE_OCB) --config baseline/builder-config.yaml
	touch $@

## baseline: build _baseline/otelcol-baseline (contrib transform/attributes/redaction, v0.161.0) for the load comparison
baseline: $(BASELINE)

FLOOR := $(ROOT)/testbench/_build/otelcol-floor

$(FLOOR): $(OCB) testbench/builder-config.yaml $(GO_SOURCES)
	$(OCB) --config testbench/builder-config.yaml
	touch $@

## floor: build testbench/_build/otelcol-floor (the line rate's floor processor, core v0.165.0, never shipped)
floor: $(FLOOR)

## loadtest: every testbench scenario, full size, against both distributions: the
## fixed-rate comparison, the side by side at full speed (about 35 min) and the
## 30-minute soak (SOAK_DURATION, SOAK_RATE), the 10-minute adversarial-shape soak and the fault scenarios
## (TestFault*, FAULT_* knobs, docs/reliability.md) included; results in TESTBENCH_RESULTS
loadtest: build baseline floor
	go test -count=1 -tags 'e2e loadtest' -timeout 4h -v ./testbench/...

## bench: microbenchmarks + measured scenarios + line rate (benchmarks/linerate.sh, about an hour
## of it; LINERATE_* knobs); writes benchmarks/results (results.md, linerate.md, cpu_per_item.png)
bench: build baseline floor
	./benchmarks/bench.sh

IMAGE_TAG     ?= ghcr.io/otelgov/otelcol-governance:0.1.0
IMAGE         := $(BUILD)/otelcol-governance-image.tar
OPERATOR_CRDS ?= $(ROOT)/../shared/operator/v0.158.0

## image: OCI image tarball from the static OCB binary, without Docker (docker load / kind load image-archive)
image: build
	go run ./cmd/mkimage -binary $(COLLECTOR) -otelgov $(OTELGOV) -config distribution/config.yaml -tag $(IMAGE_TAG) -out $(IMAGE)

## manifestlint: the GitOps review checklist over distribution/k8s (make test runs it too)
manifestlint:
	go run ./cmd/manifestlint $(if $(wildcard $(OPERATOR_CRDS)),-crds $(OPERATOR_CRDS)) distribution/k8s

clean:
	rm -rf $(BUILD) $(BIN) $(ROOT)/testbench/_build
