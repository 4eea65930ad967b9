# The two commands of the README. Each installs what it needs into .venv on a fresh machine.
#   make demo   runs a demo campaign on embedded SQLite (in .demo/)
#   make test   runs ruff, mypy and the whole test suite (PostgreSQL at 127.0.0.1:5432 required)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
BENCH_STAMP := $(VENV)/.installed-bench
DEMO_DB := .demo/demo.db
UMPIRE := UMPIRE_DB=$(DEMO_DB) $(BIN)/umpire

.PHONY: install test lint demo bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium chromium-driver)
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest -q -n auto --dist loadfile

demo: $(STAMP)
	rm -rf .demo && mkdir -p .demo
	$(BIN)/umpire map show --map classic
	$(UMPIRE) new demo --players red,blue,green --seed 2026 --map classic
	$(UMPIRE) note "Welcome, admirals. Turn 1 orders are due Friday." --to all
	$(UMPIRE) roll 2d6 --reason "ion storm strength near Mizar" --to red
	$(UMPIRE) note "Blue's long-range sensors report a drive flare near Hadar." --to blue
	$(UMPIRE) roll d6 --reason "pirate raid on the Regulus convoy" --to all
	$(UMPIRE) orders template --player red --out .demo/red.toml
	sed -i '0,/# to = "0101"/s//to = "0102"/' .demo/red.toml  # red's first scout troop moves
	$(UMPIRE) orders submit .demo/red.toml --player red
	$(UMPIRE) turn resolve
	$(UMPIRE) report --player red
	$(UMPIRE) log
	$(UMPIRE) log --as-player red
	$(UMPIRE) state --at-turn 0 --as-player blue
	$(UMPIRE) verify
	$(UMPIRE) rewind --to-turn 0
	$(UMPIRE) roll 2d6 --reason "ion storm strength near Mizar (same dice on the new branch)" --to red
	$(UMPIRE) branches --use main
	$(UMPIRE) status
	$(UMPIRE) reveal-seed --early
	$(UMPIRE) verify --dice
	$(UMPIRE) autoplay --turns 6
	$(UMPIRE) report --player red --format md
	$(UMPIRE) map show --as-player red
	$(UMPIRE) status

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python bench/bench_store.py

clean:
	rm -rf .demo .venv .mypy_cache .ruff_cache .pytest_cache .hypothesis
