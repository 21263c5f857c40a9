# `make test` is the whole test suite: it checks the release configuration,
# installs the pinned npm test servers, then runs vet, every Go test (with the
# race detector) and a short run of every fuzz target. CI runs exactly this.

NPM_DIR := internal/testenv/npm
GORELEASER_VERSION := v2.15.1
GORELEASER := $(CURDIR)/bin/goreleaser-$(GORELEASER_VERSION)/goreleaser
FUZZTIME ?= 10s

# package:FuzzTarget, one per parser.
FUZZ_TARGETS := \
	./catalog:FuzzBuild \
	./catalog:FuzzValidate \
	./manifests:FuzzParsePackage \
	./manifests:FuzzParseAgent \
	./manifests:FuzzParseServers \
	./manifests:FuzzExpand \
	./catalog:FuzzDecodeTool \
	./internal/script:FuzzRun \
	./internal/toolsmode:FuzzName

.PHONY: test npm vet unit fuzz build release-check

test: release-check npm vet unit fuzz

npm:
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error

# vet also type-checks the other release targets: the multiplexer has
# unix-only parts with stand-ins elsewhere.
vet:
	go vet ./...
	GOOS=windows go vet ./cmd/mcp ./mux
	GOOS=darwin go vet ./cmd/mcp ./mux

# cmd/mcp's tests mostly wait on servers and subprocesses rather than
# compute, so they run 8 at a time even on two cores, after the other
# packages (whose fault tests time how fast a failure is noticed).
unit:
	go test -race -count=1 $$(go list ./... | grep -v '/cmd/mcp$$')
	go test -race -count=1 -parallel 8 ./cmd/mcp

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		go test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $$pkg; \
	done

build:
	CGO_ENABLED=0 go build -trimpath -o mcp ./cmd/mcp

# goreleaser, pinned, in ./bin (one directory per version).
$(GORELEASER):
	GOBIN=$(dir $@) go install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

release-check: $(GORELEASER)
	$(GORELEASER) check
