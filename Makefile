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
SEMCONV_DIR ?= $(ROOT)/../shared/semconv/v1.44.0

# The collector is rebuilt when a non-test Go source of the root module changes.
GO_SOURCES := $(shell find . -name '*.go' -not -name '*_test.go' -not -path './_build/*' -not -path './bin/*' -not -path './internal/tools/*') go.mod go.sum

.PHONY: build run test test-unit test-e2e lint fmt generate bench clean

## build: install the pinned OCB into ./bin and build _build/otelcol-governance
build: $(COLLECTOR)

$(OCB):
	mkdir -p $(BIN)
	GOBIN=$(BIN) go install go.opentelemetry.io/collector/cmd/builder@$(OCB_VERSION)
	mv $(BIN)/builder $@

$(COLLECTOR): $(OCB) builder-config.yaml $(GO_SOURCES)
	$(OCB) --config builder-config.yaml
	touch $@

## run: build, then run the collector on the embedded default config
run: build
	$(COLLECTOR) --config distribution/config.yaml

## test: the whole suite: unit tests, then end-to-end tests against the built binary
test: test-unit test-e2e

test-unit:
	go test -count=1 ./...

test-e2e: build
	go test -count=1 -tags e2e -timeout 20m ./e2e/...

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

## generate: mdatagen for every component, and the embedded registry from SEMCONV_DIR
generate: $(MDATAGEN)
	go generate ./...
	go run ./cmd/registrygen -semconv $(SEMCONV_DIR) -out registry/embedded_gen.go

## bench: Go microbenchmarks of the hot path (benchstat-friendly output)
bench:
	go test -run '^$$' -bench . -benchmem -count 6 ./registry/... ./processor/... | tee bench.out

clean:
	rm -rf $(BUILD) $(BIN)
