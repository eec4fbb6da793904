# smsfilter: the two-command quick start is `make demo` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
BIN := .build/release/smsfilter
SAMPLE ?= samples/sample.jsonl.zst
# Extra flags for the builds of `make test`. CI (.ci/run) sets `-Xswiftc -warnings-as-errors`, so that a
# warning anywhere in the package, its tests included, fails CI (swift-nio's habit); by hand a warning stays
# a warning: `make test SWIFT_BUILD_FLAGS=` (the default) or CI's strictness with
# `make test SWIFT_BUILD_FLAGS='-Xswiftc -warnings-as-errors'`.
SWIFT_BUILD_FLAGS ?=
# The release binary is one file to copy: on Linux the Swift runtime and Foundation (with its ICU data) are
# linked in statically, so it needs only the C library, libstdc++, libzstd and zlib (Scripts/check-one-file.sh;
# sizes and start-up in docs/PERFORMANCE.md). Every release build of the Makefile uses the same flags.
RELEASE_FLAGS := -c release $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib,)

.PHONY: all deps build demo test test-one-file test-dataframes bench bench-check peers fuzz clean help test-spark bench-spark report-check peers-matcher test-aho-checks test-buffer-checks test-filter-checks portability extension peers-quality mutate default-model embed-default-model quality test-guard-env budget

all: build

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

deps: ## Install libzstd-dev and zlib1g-dev (apt-get) when pkg-config cannot find libzstd or zlib.
	@missing=""; \
	if pkg-config --exists libzstd 2>/dev/null; then echo "deps: libzstd $$(pkg-config --modversion libzstd) found"; else missing="libzstd-dev"; fi; \
	if pkg-config --exists zlib 2>/dev/null; then echo "deps: zlib $$(pkg-config --modversion zlib) found"; else missing="$$missing zlib1g-dev"; fi; \
	if [ -z "$$missing" ]; then \
	  :; \
	elif command -v apt-get >/dev/null 2>&1; then \
	  echo "deps: installing$${missing:+ }$$missing with apt-get"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing pkg-config zstd >/dev/null \
	    || { echo "deps: apt-get could not install$$missing" >&2; exit 1; }; \
	else \
	  echo "deps: $$missing not found by pkg-config and there is no apt-get here." >&2; \
	  echo "      Install the development files of zstd and zlib, and pkg-config, yourself:" >&2; \
	  echo "      macOS: brew install zstd zlib pkg-config   Fedora: dnf install libzstd-devel zlib-devel   Alpine: apk add zstd-dev zlib-dev" >&2; \
	  exit 1; \
	fi
	@command -v zstd >/dev/null 2>&1 || { command -v apt-get >/dev/null 2>&1 && apt-get install -y -qq zstd >/dev/null; } || true

build: deps ## Build the release binary (.build/release/smsfilter), the Swift runtime linked in: one file to copy.
	$(SWIFT) build $(RELEASE_FLAGS) --product smsfilter

demo: build ## Classify the bundled sample with the embedded default rules and print the per-folder counts.
	$(BIN) classify $(SAMPLE) -o /tmp/smsfilter-demo.jsonl.zst --counts /tmp/smsfilter-demo-counts.json --force
	@echo "labelled records: /tmp/smsfilter-demo.jsonl.zst   counts: /tmp/smsfilter-demo-counts.json"

test: deps ## Build everything and run the whole test suite (and the portability, test-path, exit-status and layering checks, and the release binary copied alone).
	bash Scripts/check-portability.sh
	bash Scripts/check-simd.sh
	bash Scripts/check-test-paths.sh
	bash Scripts/check-exit-codes.sh
	bash Scripts/check-layers.sh
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	$(SWIFT) test --skip-build $(SWIFT_BUILD_FLAGS)
	$(MAKE) test-one-file

test-one-file: build ## The release binary loads nothing of the toolchain and classifies the sample when copied alone (env -i; a fresh root as root).
	bash Scripts/check-one-file.sh $(BIN) $(SAMPLE)

mutate: deps ## Plant each bug of Scripts/mutations in a scratch copy without ../shared; every one must fail the tests (not in make test).
	bash Scripts/mutate.sh

test-guard-env: deps ## Run the output-guard tests with the test process's standard output a file, a pipe and a terminal: same verdicts.
	$(SWIFT) build --build-tests
	bash Scripts/check-guard-env.sh

BENCH_CORPUS := .build/bench/corpus-500k.jsonl.zst

$(BENCH_CORPUS): | build
	@mkdir -p $(dir $@)
	$(BIN) generate --count 500000 --seed 1 -o $@ --quiet

bench: build $(BENCH_CORPUS) ## `smsfilter bench` on a generated corpus, issue 23's ratios (Scripts/job-ratios.sh), then the Benchmarks package suites.
	$(BIN) bench $(BENCH_CORPUS)
	bash Scripts/job-ratios.sh $(BIN) $(BENCH_CORPUS)
	cd Benchmarks && swift package --disable-sandbox benchmark --no-progress

budget: build ## The per-byte budget: callgrind's instructions per decoded byte per stage (default, rules alone, whole job --labels-only) on a generated corpus and ../shared/corpora; fails over Benchmarks/budget.json (a few minutes; not in make test).
	bash Scripts/budget.sh $(BIN)

bench-check: build ## Check the Benchmarks package against its committed thresholds (exits non-zero on a regression).
	cd Benchmarks && swift package --disable-sandbox benchmark thresholds check --no-progress

peers: build ## smsfilter beside zstd, ripgrep, pyahocorasick, ahocorasick_rs, hyperscan and a Python pipeline; the automaton beside Hyperscan's C API; learn/classify beside scikit-learn and fastText.
	bash Benchmarks/peers/run.sh
	bash Benchmarks/peers/run-hyperscan-c.sh
	bash Benchmarks/peers/quality.sh

report-check: build ## Evaluate the sample, render the HTML report in headless Chromium (installs it if missing) and check the PNG.
	$(BIN) evaluate $(SAMPLE) --map 'spam=junk|promotion,ham=other,OTP=transaction,scam=junk,OK=other' --report /tmp/smsfilter-report.html --json-file /tmp/smsfilter-report.json --force
	bash Scripts/render-report.sh /tmp/smsfilter-report.html /tmp/smsfilter-report.png
	@[ "$$(head -c 8 /tmp/smsfilter-report.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "report-check: not a PNG" >&2; exit 1; }
	@printf '<!DOCTYPE html><html><body></body></html>' > /tmp/smsfilter-blank.html
	@if bash Scripts/render-report.sh /tmp/smsfilter-blank.html /tmp/smsfilter-blank.png 2>/dev/null; then \
	  echo "report-check: render-report.sh accepted a blank page" >&2; exit 1; fi
	@echo "report-check: the report renders (and a blank page is refused)"

portability: ## Check AhoCorasick and MessageFilter for Linux-only imports and API outside #if guards.
	bash Scripts/check-portability.sh
	bash Scripts/check-simd.sh

extension: build ## Export the iOS extensions for samples/example-rules.yaml into /tmp/smsfilter-extension.
	$(BIN) export-extension samples/example-rules.yaml -o /tmp/smsfilter-extension --force

fuzz: ## Fuzz AhoCorasick's load-then-scan with libFuzzer (FUZZ_SECONDS, default 60).
	bash Scripts/fuzz-aho.sh $${FUZZ_SECONDS:-60}

peers-matcher: ## The matcher alone beside pyahocorasick, ahocorasick_rs, hyperscan and ripgrep on the same bodies.
	bash Benchmarks/peers/run-matcher-peers.sh 5

default-model: build ## Retrain the embedded default model (samples/default-model.yaml and its embedded copy; same bytes each time), then rebuild.
	bash Scripts/make-default-model.sh
	$(SWIFT) build $(RELEASE_FLAGS) --product smsfilter

embed-default-model: build ## Compile the committed samples/default-model.yaml and embed it again (no learning), then rebuild.
	bash Scripts/make-default-model.sh --embed-only
	$(SWIFT) build $(RELEASE_FLAGS) --product smsfilter

quality: build ## Score the default (rules + model), the rules alone and the model alone on every corpus in ../shared/corpora, per market on Tests/Fixtures/markets, and `learn` beside LinearSVC and fastText (when importable) on the same folds (docs/QUALITY.md); QUALITY_ARGS=--write-doc updates the tables there.
	python3 Scripts/quality.py $(QUALITY_ARGS)

peers-quality: build ## docs/QUALITY.md: default rules, learn, scikit-learn's TF-IDF + LinearSVC and fastText on the same 5 folds (installs scikit-learn and fasttext-wheel when missing), then make quality's learner table with the peers.
	bash Benchmarks/peers/quality.sh
	python3 Scripts/quality.py --learner-only $(QUALITY_ARGS)

test-aho-checks: deps ## AhoCorasick tests with AHOCORASICK_INTERNAL_CHECKS (_checkInvariants on every build).
	$(SWIFT) test -Xswiftc -DAHOCORASICK_INTERNAL_CHECKS --scratch-path .build-checks --filter AhoCorasickTests

# The suites that read, frame, parse and write records (the library's and the binary's, which the build
# makes with the flag too).
BUFFER_CHECK_SUITES := JSONScannerTests|LineLedgerTests|PipelineTests|PipelineXMLOverlongTests|OverLongBudgetTests|LineCountTests|ByteSourceTests|FramingTests|EveryFormatTests|HostileInputTests|FormatLimitsTests|ExportTests|EvaluateTests

test-buffer-checks: deps ## Reader, format and pipeline tests with BATCHPIPELINE_INTERNAL_CHECKS (buffer, chunk and pool _checkInvariants).
	$(SWIFT) test -Xswiftc -DBATCHPIPELINE_INTERNAL_CHECKS --scratch-path .build-buffer-checks --filter '$(BUFFER_CHECK_SUITES)'

test-filter-checks: deps ## MessageFilter's tests with MESSAGEFILTER_INTERNAL_CHECKS (rule-set and model tables checked on every build and load, the model's with its scratch per batch, normalised text per message).
	$(SWIFT) test -Xswiftc -DMESSAGEFILTER_INTERNAL_CHECKS --scratch-path .build-filter-checks --filter MessageFilterTests

clean: ## Remove build products.
	rm -rf .build Benchmarks/.build

test-spark: build ## Run the Spark integration in local[2] mode (installs pyspark from PyPI when missing).
	bash integrations/spark/test.sh

bench-spark: build ## Measure splitting (issue 24): overhead at 256M splits, local[2] against classify --threads 2 on 1 GB (ROUNDS, default 3; run test-spark first for pyspark).
	bash integrations/spark/bench-split.sh
