# Two commands a newcomer needs: `make demo` and `make test`. Each builds .venv itself.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow bench venv clean system-deps

$(STAMP): setup.cfg pyproject.toml requirements-lock.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c requirements-lock.txt -e '.[test,plot]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/spit-referee demo

# Programs some tests run for real (issue 7: a Mosquitto broker, headless Chromium; speech:
# espeak-ng). Installed with apt-get when missing and we are root; otherwise named, and those
# tests skip (under CI=true they fail instead).
SYSTEM_DEPS := mosquitto chromium espeak-ng
system-deps:
	@missing=""; for p in $(SYSTEM_DEPS); do \
	  command -v $$p >/dev/null 2>&1 || [ -x /usr/sbin/$$p ] || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing$$missing with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing >/dev/null; \
	else \
	  echo "missing system packages:$$missing -- install them with: sudo apt-get install$$missing"; \
	fi

# One test process per core (pytest-xdist); `worksteal` hands a worker that runs out of tests
# some of the other's, so one long game replay near the end does not hold the run up.
test: $(STAMP) system-deps
	$(BIN)/python -m pytest -q -n auto --dist worksteal

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow -n auto --dist worksteal

bench: $(STAMP) system-deps
	for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis
