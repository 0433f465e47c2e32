# Two commands for a newcomer: `make demo` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP  := $(VENV)/.installed
# axe-core (the browser tests' accessibility scan), from the npm registry into the venv: a
# test-only place, never a committed node_modules
AXE    := $(VENV)/node/node_modules/axe-core/axe.min.js
AXE_VERSION := 4.10.2
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages the tests drive for real: the MQTT broker, the browser, and shellcheck for
# the Pi install script

.PHONY: help venv venv-pi deps test test-fast demo bench eval-vision train-vision race-table install-pi pi-check lint clean

help:
	@echo "make demo         set up and run a simulated table with its dashboard"
	@echo "make test         set up and run the whole test suite"
	@echo "make bench        benchmarks -> bench/results.json"
	@echo "make eval-vision  accuracy of the dice and track readers"
	@echo "make train-vision train the die classifier (PyTorch, CPU) and export it to ONNX"
	@echo "make install-pi   install on Raspberry Pi OS (systemd units, camera, broker)"
	@echo "make pi-check     the Pi install's Python part in an emulated arm64 Bookworm (root)"

# pip's own output goes to a log, shown only when the install fails: a machine's pip
# configuration (an extra index or find-links directory that lacks some packages) makes pip warn
# once per package even with --quiet, which buried the one line that matters.
$(STAMP): pyproject.toml
	@echo "setting up $(VENV) (pip's log: $(VENV)/install.log)"
	@$(PYTHON) -m venv $(VENV)
	@$(PIP) install --upgrade pip > $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; exit 1; }
	@$(PIP) install -e '.[test,train]' >> $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; exit 1; }
	@touch $(STAMP)

venv: $(STAMP)

# the project under the Pi's constraints (Debian Bookworm's numpy, OpenCV 4.10), for `make bench`
PI_VENV := .venv-pi
$(PI_VENV)/.installed: pyproject.toml firmware/install/constraints-bookworm.txt
	$(PYTHON) -m venv $(PI_VENV)
	$(PI_VENV)/bin/pip install --quiet --upgrade pip
	$(PI_VENV)/bin/pip install --quiet -c firmware/install/constraints-bookworm.txt -e .
	touch $@

venv-pi: $(PI_VENV)/.installed

$(AXE): | $(STAMP)
	@npm install --silent --no-audit --no-fund --prefix $(VENV)/node axe-core@$(AXE_VERSION) \
	  > $(VENV)/npm.log 2>&1 || { cat $(VENV)/npm.log; exit 1; }

# Installs the Debian packages the tests need, only when one is missing.
deps:
	@missing=""; \
	command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || missing="$$missing mosquitto"; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	command -v shellcheck >/dev/null 2>&1 || missing="$$missing shellcheck"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing fonts-dejavu-core; \
	fi

test: deps venv lint $(AXE)
	$(PY) -m pytest -q

test-fast: venv
	$(PY) -m pytest -q -m "not slow and not browser"

# make demo ARGS="--seat Ann --game horserace": any option of `pyramid demo --help`
ARGS ?=
demo: deps venv
	@$(VENV)/bin/pyramid demo $(ARGS)

bench: deps venv venv-pi
	$(PY) -m bench.run

eval-vision: venv
	$(PY) -m vision.eval

# the die classifier: seeded, ~18 min on 2 cores (5 of it the crops, 30 epochs of ~25 s); writes vision/dice/models/die_classifier.*
train-vision: venv
	$(PY) -m vision.train.train

race-table: venv
	$(PY) scripts/build_race_table.py

install-pi:
	bash firmware/install/install-pi.sh

# Opt-in (root, network, ~15 min the first time): never part of `make test`
pi-check:
	$(SUDO) nice -n 10 bash firmware/install/pi-check.sh

# ruff over the tree; mypy strict on every package (hub/, vision/, firmware/, hardware/). Zero
# findings, or `make test` stops.
lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check --quiet .
	$(VENV)/bin/mypy --strict hub
	$(VENV)/bin/mypy --strict vision
	$(VENV)/bin/mypy --strict firmware hardware

clean:
	rm -rf $(VENV) $(PI_VENV) .pytest_cache .hypothesis
