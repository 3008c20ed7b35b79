# The two README commands (`make run`, `make test`) need only Python 3.11+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: `make run` installs the runtime dependencies only; `make test`, `lint` and the
# others add the test and development extras (and mark the runtime as installed too).
RUN_STAMP := $(VENV)/.installed-run
STAMP := $(VENV)/.installed

.PHONY: run test test-fast bench fuzz lint venv clean browser emoji-font conformance screenshots

# Test workers: one per core, at most 2 (each worker pays a few seconds of templates and imports,
# which more workers than cores do not win back). `make test WORKERS=1` runs serially. Each module
# goes whole to one worker (its servers and browsers are module-scoped), longest first: xdist's
# own reordering (by number of tests) would leave the long one-test modules for the end, and
# tests/scheduling.py orders them first instead.
DIST := --dist loadscope --no-loadscope-reorder
# Some machines (container images, CI runners) set PYTHONDONTWRITEBYTECODE. The suite starts about
# a hundred Python processes (servers, CLI commands, workers), and each would then compile every
# module it imports from source: 0.4 of a server's 1.4 s start. The caches are git-ignored.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest
WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -lt 2 ] && echo $$n || echo 2)

# The browser tests need headless Chromium: Debian's chromium-headless-shell (the desktop
# `chromium` also works, at twice the CPU time). Where it is missing and we may install system
# packages (root with apt-get, as on CI), install it; otherwise say so and let the tests report it.
browser:
	@if command -v chromium-headless-shell >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing Debian's chromium-headless-shell for the browser tests (once)..."; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null; \
	elif command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then :; \
	else echo "chromium is not installed; the browser tests will say so (apt-get install chromium-headless-shell)."; fi

# The chat client's emoji font: Debian's fonts-noto-color-emoji (SIL Open Font License 1.1),
# served to browsers so that emoji do not depend on the reader's fonts. Installed where we may
# (root with apt-get), as `browser` does; otherwise emoji use the readers' own fonts.
emoji-font:
	@if [ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing Debian's fonts-noto-color-emoji for the chat's emoji (once)..."; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-color-emoji >/dev/null; \
	else echo "fonts-noto-color-emoji is not installed: chat emoji use the readers' own fonts."; fi

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $(STAMP) $(RUN_STAMP)

venv: $(STAMP)

run: $(RUN_STAMP) emoji-font
	ATRIUM_DATA_DIR=$${ATRIUM_DATA_DIR:-./atrium-data} $(BIN)/atrium demo --if-empty
	ATRIUM_DATA_DIR=$${ATRIUM_DATA_DIR:-./atrium-data} $(BIN)/atrium serve

# The whole suite, as CI runs it; `make test T=tests/chat/test_drafts.py` (or a node id) runs
# just that, serially, for the inner loop.
test: $(STAMP) browser emoji-font
ifdef T
	$(PYTEST) $(T)
else
	$(PYTEST) -n $(WORKERS) $(DIST)
endif

# The in-process tests only (no server processes or browsers): a few minutes.
test-fast: $(STAMP)
	$(PYTEST) -n $(WORKERS) $(DIST) -m "not e2e"

bench: $(STAMP)
	$(BIN)/python -m bench

# The README's screenshots, from the demo organization (needs Debian's chromium).
screenshots: $(STAMP) browser
	$(BIN)/python -m tools.readme_screenshots

# MediaWiki's own Action API tests against a real server (needs apt and node/npm; a few minutes,
# so outside `make test`). Writes CONFORMANCE.md.
conformance: $(STAMP)
	tools/conformance/atrium.sh

# The long runs of the suite's fuzzing and crash tests (a few minutes of them run in `make test`):
# 100,000 fuzzed requests per service, then 20 kill -9 cycles per database backend. `-s` shows the
# figures each prints.
fuzz: $(STAMP)
	ATRIUM_FUZZ_REQUESTS=100000 $(PYTEST) -m fuzz -s
	ATRIUM_CRASH_CYCLES=20 $(PYTEST) -m crash -s

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-logo

clean:
	rm -rf $(VENV) build *.egg-info
