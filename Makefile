# Waypost — set-up and everyday targets. `make demo` and `make test` work from a fresh clone
# on Debian/Ubuntu with Swift: they install the C libraries they need first.

SHELL := /bin/bash
SWIFT ?= swift
# libjs-leaflet and libjs-leaflet.markercluster: `waypost report --format html` inlines them (from
# /usr/share/javascript/leaflet, or WAYPOST_LEAFLET_DIR) into a map that works offline.
DEPS = libxml2-dev libsqlite3-dev zlib1g-dev pkg-config libjs-leaflet libjs-leaflet.markercluster
BENCH_DEPS = libxml2-utils gpsbabel wrk
# Tools the tests run: gpsbabel writes the KML that GpsbabelCLITests reads back; xmllint
# validates JUnit, GPX and KML against their schemas; groff checks the man page; gpsd and
# gpspipe read `replay --nmea-serve` in Tests/FormatConformance/run.sh.
TEST_DEPS = gpsbabel libxml2-utils groff-base gpsd gpsd-clients
DEMO_TRACK ?= tracks/sunnyvale-commute.kml
DEMO_DB ?= .waypost/demo.db

PREFIX ?= /usr/local
CONFIG ?= release

.PHONY: deps build demo test golden-update api-update bench calibrate fuzz format lint clean embed install uninstall

deps:
	@scripts/install-deps.sh $(DEPS)

build: deps
	$(SWIFT) build --product waypost

## Replays the shipped commute past four cafés, checks in through the in-process emulator
## (region events and posts shown; fixes left out), then prints the audit of the run.
demo: build
	rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	$$($(SWIFT) build --show-bin-path)/waypost replay $(DEMO_TRACK) --regions fixtures/regions/commute-cafes.yaml \
	  --checkins fixtures/rules/coffee.yaml --privacy fixtures/privacy/demo.yaml --db $(DEMO_DB) \
	  | grep -v '  location  '
	$$($(SWIFT) build --show-bin-path)/waypost audit --db $(DEMO_DB)
	$$($(SWIFT) build --show-bin-path)/waypost report --db $(DEMO_DB) --format svg --output .waypost/demo.svg
	$$($(SWIFT) build --show-bin-path)/waypost report --db $(DEMO_DB) --format html --output .waypost/demo.html
	@echo "Map of the run: .waypost/demo.html (Leaflet: layers, popups, time slider; offline) and .waypost/demo.svg"

## Builds and runs every test (unit, conformance against ../shared/corpus, hostile input, CLI),
## builds and tests Examples/LibraryQuickstart (a package using Waypost by path, as a user's would),
## type-checks the Apple-platform adapters against a Core Location shim (Tests/AppleAdapters),
## looks for standard library API newer than the declared macOS 14 / iOS 17 used unguarded,
## compares the shipped tracks' and scenarios' outputs with the golden list (make golden-update),
## then the scenario library end to end (JUnit XML in .build/scenarios.xml), the HTML report in
## headless chromium (installed when missing; screenshots in .build/report-screenshots), bash
## completion of file arguments, JUnit/GPX/KML against their XML schemas (Jenkins JUnit 4 and
## junit-10, GPX 1.1, OGC KML 2.2 from PyPI's fastkml), `waypost compare`'s JSON against
## docs/schemas/compare.schema.json (PyPI's jsonschema), the GeoJSON exports and report against the PyPI
## geojson, geojson-rewind and shapely packages (RFC 7946 structure and winding), then real Twitter and
## Graph client libraries (tweepy, python-twitter, twython, Python Twitter Tools, facebook-sdk…; Perl's
## Net::Twitter::Lite and Net::Twitter, installed with apt-get when missing) against `waypost emulator`.
## Shards run as a Slurm job array on a one-node cluster the script starts and stops (root only;
## skipped with a note elsewhere, required in CI).
## Tests that read ../shared/corpus are skipped where it is absent (a user's clone), with one line
## saying how many; CI sets WAYPOST_REQUIRE_CORPUS=1, which makes its absence a failure.
test: deps
	@scripts/install-deps.sh $(TEST_DEPS)
	$(SWIFT) build --build-tests
	@set -o pipefail; $(SWIFT) test --skip-build 2>&1 | tee .build/swift-test.log
	@skipped=$$(grep -c 'skipped: "needs ../shared/corpus' .build/swift-test.log || true); \
	  if [ "$$skipped" -gt 0 ]; then echo "note: $$skipped tests and suites that read ../shared/corpus were skipped: it is not beside this checkout (CI has it, and requires it)"; fi
	$(SWIFT) test --package-path Examples/LibraryQuickstart
	scripts/typecheck-apple-adapters.sh $$($(SWIFT) build --show-bin-path)
	scripts/check-apple-availability.py
	scripts/public-api.sh $$($(SWIFT) build --show-bin-path)
	scripts/check-doc-examples.sh $$($(SWIFT) build --show-bin-path)
	scripts/golden-check.sh $$($(SWIFT) build --show-bin-path)/waypost
	scripts/test-slurm.sh $$($(SWIFT) build --show-bin-path)/waypost
	$$($(SWIFT) build --show-bin-path)/waypost test fixtures/scenarios/*.yaml --junit .build/scenarios.xml
	scripts/test-report-in-browser.sh $$($(SWIFT) build --show-bin-path)/waypost
	scripts/test-completion.sh $$($(SWIFT) build --show-bin-path)/waypost
	Tests/XMLSchemaConformance/run.sh $$($(SWIFT) build --show-bin-path)/waypost
	Tests/JSONSchemaConformance/run.sh $$($(SWIFT) build --show-bin-path)/waypost
	Tests/GeoJSONConformance/run.sh $$($(SWIFT) build --show-bin-path)/waypost
	Tests/FormatConformance/run.sh $$($(SWIFT) build --show-bin-path)/waypost
	scripts/test-install.sh debug
	Tests/ClientConformance/run.sh $$($(SWIFT) build --show-bin-path)/waypost

## Records the outputs the golden check compares (fixtures/golden/outputs.sha256), after a
## deliberate change of output: commit the list with a message saying why.
golden-update: build
	scripts/golden-check.sh --update $$($(SWIFT) build --show-bin-path)/waypost

## Records the public API (api/public-api.txt) after a deliberate change to what a library user
## sees: commit the list with a message saying why.
api-update: build
	scripts/public-api.sh --update $$($(SWIFT) build --show-bin-path)

## Generates 1M-point inputs and measures the reader against xmllint and gpsbabel (release build).
bench: deps
	@scripts/install-deps.sh $(BENCH_DEPS)
	$(SWIFT) build -c release --product waypost-bench
	$(SWIFT) build -c release --product waypost
	$$($(SWIFT) build -c release --show-bin-path)/waypost-bench
	@echo "sweep: 16 cells x 500 trials, the field mechanism alone (release, --jobs $$(nproc)); goal: within a minute"
	@/usr/bin/env bash -c 'start=$$(date +%s.%N); $$($(SWIFT) build -c release --show-bin-path)/waypost sweep --radius 10,50,100,200 \
	  --speed 1.4,5,15,30 --trials 500 --format json -o /dev/null; end=$$(date +%s.%N); \
	  echo "sweep: $$(awk "BEGIN { print $$end - $$start }") s (goal: <= 60 s)"'

## Fits the field mechanism's parameter sets to their published figures (docs/field-calibration.md)
## and writes them where the code reads them (Sources/LocationSimulation/Field/FittedParameters.swift).
calibrate: deps
	$(SWIFT) build -c release --product waypost
	$$($(SWIFT) build -c release --show-bin-path)/waypost calibrate --write

## Fuzzes the track reader, the configuration readers, the emulator and the OAuth parser with
## libFuzzer and AddressSanitizer (FUZZ_SECONDS per target, default 60; FUZZ_TARGETS to pick).
fuzz: deps
	SWIFT=$(SWIFT) scripts/fuzz.sh

## Installs the tool (release build), its bash/zsh/fish completions, man page and format docs under PREFIX
## (default /usr/local; PREFIX=$$HOME/.local needs no root). `make uninstall PREFIX=…` removes them.
install: deps
	SWIFT=$(SWIFT) scripts/install.sh "$(PREFIX)" $(CONFIG)

uninstall:
	scripts/install.sh --uninstall "$(PREFIX)"

## Rebuilds the places compiled into the tool from fixtures/places, and the format help
## (`waypost help regions` …) from docs/formats and docs/scenarios.md (tests check they agree).
embed:
	scripts/embed-places.sh
	scripts/embed-help.sh

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks Examples Fuzz

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks Examples Fuzz
	scripts/check-apple-availability.py

clean:
	rm -rf .build .bench .build-fuzz
