# `make test` is the whole test suite: it installs the pinned npm test
# servers, then runs vet, every Go test (with the race detector) and a short
# run of every fuzz target. CI runs exactly this.

NPM_DIR := internal/testenv/npm
FUZZTIME ?= 10s

# package:FuzzTarget, one per parser.
FUZZ_TARGETS := \
	./internal/callargs:FuzzBuild \
	./manifests:FuzzParsePackage \
	./manifests:FuzzParseAgent \
	./manifests:FuzzParseServers \
	./manifests:FuzzExpand \
	./mux:FuzzDecodeTool \
	./internal/script:FuzzRun

.PHONY: test npm vet unit fuzz build

test: npm vet unit fuzz

npm:
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error

vet:
	go vet ./...

unit:
	go test -race -count=1 ./...

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		go test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $$pkg; \
	done

build:
	CGO_ENABLED=0 go build -trimpath -o mcp ./cmd/mcp
