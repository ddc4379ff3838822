# Waypost — set-up and everyday targets. `make demo` and `make test` work from a fresh clone
# on Debian/Ubuntu with Swift: they install the C libraries they need first.

SWIFT ?= swift
DEPS = libxml2-dev libsqlite3-dev zlib1g-dev pkg-config
BENCH_DEPS = libxml2-utils gpsbabel wrk
DEMO_TRACK ?= tracks/cupertino-walk.kml

.PHONY: deps build demo test bench format lint clean

deps:
	@scripts/install-deps.sh $(DEPS)

build: deps
	$(SWIFT) build --product waypost

## Replays a shipped route and prints its location fixes.
demo: build
	$$($(SWIFT) build --show-bin-path)/waypost replay $(DEMO_TRACK)

## Builds and runs every test (unit, conformance against ../shared/corpus, hostile input, CLI).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## Generates 1M-point inputs and measures the reader against xmllint and gpsbabel (release build).
bench: deps
	@scripts/install-deps.sh $(BENCH_DEPS)
	$(SWIFT) build -c release --product waypost-bench
	$(SWIFT) build -c release --product waypost
	$$($(SWIFT) build -c release --show-bin-path)/waypost-bench

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks

clean:
	rm -rf .build .bench
