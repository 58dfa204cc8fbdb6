# polite: build, test, bench, demo, lint.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
LDFLAGS := -s -w -X github.com/polite-crawler/polite/cmd.Version=$(VERSION) -X github.com/polite-crawler/polite/cmd.Commit=$(COMMIT)
DEMO    := demo

.PHONY: all build test bench fuzz demo lint clean

all: lint test build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/polite .
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/polite-origin ./cmd/polite-origin

# The whole suite; the packages with goroutines run under the race detector.
test:
	$(GO) vet ./...
	$(GO) test -count=1 ./store/... ./robots/... .
	$(GO) test -count=1 -race ./pace/... ./crawl/... ./cmd/...
	$(GO) test -count=1 -run '^TestSitemapsHostileAreBoundedAndReported$$' ./crawl/e2etest/

# Politeness and throughput figures against the test origin on loopback
# (about 5 minutes); see "Benchmarks" in the README. BENCHFLAGS adds flags,
# e.g. BENCHFLAGS='-only bucket,throughput'.
bench: build
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/polite-bench ./cmd/polite-bench
	bin/polite-bench -polite bin/polite $(BENCHFLAGS)
	$(GO) test -run '^$$' -bench 'LyingContentLength' -benchmem ./crawl/fetch/

# Each fuzz target for FUZZTIME; their seed corpora also run in make test.
FUZZTIME ?= 30s
fuzz:
	@for p in ./crawl/urls/ ./crawl/fetch/ ./crawl/output/ ./crawl/seeds/ ./crawl/sitemap/ ./robots/ ./pace/; do \
		for t in $$($(GO) test -list '^Fuzz' $$p | grep ^Fuzz); do \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$p || exit 1; \
		done; \
	done

# Start the test origin on loopback, crawl it, show the report and status.
demo: build
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	@bin/polite-origin -hosts 3 -seeds $(DEMO)/seeds.txt -for 5m > $(DEMO)/origin.log 2>&1 & echo $$! > $(DEMO)/origin.pid
	@for i in $$(seq 50); do grep -q '^ready' $(DEMO)/origin.log 2>/dev/null && break; sleep 0.1; done
	@grep -v '^ready' $(DEMO)/origin.log
	@echo; echo '$$ polite crawl --db $(DEMO)/polite.db --out $(DEMO)/out --depth 3 $(DEMO)/seeds.txt'
	@bin/polite crawl --db $(DEMO)/polite.db --out $(DEMO)/out --depth 3 --progress never $(DEMO)/seeds.txt; echo "exit code $$?"
	@echo; echo '$$ polite status --db $(DEMO)/polite.db'
	@bin/polite status --db $(DEMO)/polite.db
	@echo; echo "report: $(DEMO)/out/report.html, bodies and manifest.jsonl in $(DEMO)/out"
	@kill $$(cat $(DEMO)/origin.pid) 2>/dev/null; sleep 0.2; true

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin $(DEMO) polite-out
