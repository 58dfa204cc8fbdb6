# polite: build, test, bench, demo, lint, man, dist.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# What polite version reports when the build info records no commit.
COMMIT      ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
COMMIT_TIME ?= $(shell TZ=UTC0 git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null)
MODIFIED    ?= $(shell test -n "$$(git status --porcelain 2>/dev/null)" && echo true)
# The commit's time: the date of the man pages and of every archive entry.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
export SOURCE_DATE_EPOCH
PKG     := github.com/polite-crawler/polite/cmd
LDFLAGS := -s -w -X $(PKG).Version=$(VERSION) -X $(PKG).Commit=$(COMMIT) -X $(PKG).CommitTime=$(COMMIT_TIME) -X $(PKG).Modified=$(MODIFIED)
DEMO    := demo
DIST    := dist
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64

.PHONY: all build test bench fuzz demo lint man dist clean

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
# e.g. BENCHFLAGS='-only bucket,throughput'. The colly crawler beside polite
# is a module of its own (cmd/polite-bench/colly): its first build fetches
# colly through the Go module proxy; polite's go.mod never lists it.
bench: build
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/polite-bench ./cmd/polite-bench
	cd cmd/polite-bench/colly && CGO_ENABLED=0 $(GO) build -trimpath -o ../../../bin/polite-colly .
	bin/polite-bench -polite bin/polite $(BENCHFLAGS)
	$(GO) test -run '^$$' -bench 'LyingContentLength' -benchmem ./crawl/fetch/
	$(GO) test -run '^$$' -bench 'TenNights' -benchtime 1x ./crawl/revisit/

# Each fuzz target for FUZZTIME; their seed corpora also run in make test.
FUZZTIME ?= 30s
fuzz:
	@for p in ./crawl/urls/ ./crawl/fetch/ ./crawl/output/ ./crawl/seeds/ ./crawl/sitemap/ ./crawl/usage/ ./robots/ ./pace/; do \
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

# The manual pages, from the commands' help: man/man1/polite.1,
# polite-crawl.1, ... (man -l man/man1/polite-crawl.1, or MANPATH=man).
man:
	$(GO) run ./cmd/polite-docs -version $(VERSION) -man man/man1

# Release archives in dist/: per platform a static binary with the man
# pages, bash/zsh/fish completions and the README, as .tar.gz (.zip for
# Windows), and SHA256SUMS. The same commit gives the same bytes: -trimpath,
# every date SOURCE_DATE_EPOCH (the commit's time), entries sorted and owned
# by 0 (cmd/polite-dist).
dist:
	rm -rf $(DIST) && mkdir -p $(DIST)/stage
	$(GO) build -o $(DIST)/stage/polite-dist ./cmd/polite-dist
	$(GO) run ./cmd/polite-docs -version $(VERSION) -man $(DIST)/stage/man/man1 -completions $(DIST)/stage/completions
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; name=polite_$(VERSION)_$${os}_$${arch}; exe=polite; ext=tar.gz; \
		if [ $$os = windows ]; then exe=polite.exe; ext=zip; fi; \
		echo "$(DIST)/$$name.$$ext"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(DIST)/stage/$$name/$$exe . ; \
		$(DIST)/stage/polite-dist archive -o $(DIST)/$$name.$$ext -root $$name $$exe=$(DIST)/stage/$$name/$$exe \
			man=$(DIST)/stage/man completions=$(DIST)/stage/completions README.md=README.md \
			$$(test -f LICENSE && echo LICENSE=LICENSE); \
	done
	$(DIST)/stage/polite-dist sums -o $(DIST)/SHA256SUMS $(DIST)/polite_*
	rm -rf $(DIST)/stage
	cat $(DIST)/SHA256SUMS

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin $(DEMO) polite-out man $(DIST)
