# make lab   - create .venv if needed, install the kit, start JupyterLab on notebooks/
# make test  - create .venv if needed, install test extras, run every test and nbval
# make bench - run the benchmarks and print the tables
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP_LAB  := $(VENV)/.installed-lab
STAMP_TEST := $(VENV)/.installed-test
NOTEBOOKS := $(sort $(wildcard notebooks/source/*/*.ipynb notebooks/release/*/*.ipynb))
NBVAL_FLAGS := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
               --nbval-cell-timeout 120

.PHONY: lab test test-unit test-notebooks bench release lint clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP_LAB): pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[lab]'
	touch $@

$(STAMP_TEST): pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[test,lab]'
	touch $@

# JupyterLab refuses to run as root unless told to (containers and CI machines run as root)
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: $(STAMP_LAB)
	$(VENV)/bin/jupyter lab notebooks/ $(LAB_FLAGS)

# pytest exits 5 when it collected nothing: that is a failure here, never a silent pass
test: test-unit test-notebooks

test-unit: $(STAMP_TEST)
	$(PY) tools/run_pytest.py -q tests autogradkit --doctest-modules

test-notebooks: $(STAMP_TEST)
ifeq ($(NOTEBOOKS),)
	@echo "nbval: there are no notebooks under notebooks/source or notebooks/release yet"
else
	$(PY) tools/run_pytest.py -q -p no:hypothesispytest $(NBVAL_FLAGS) $(NOTEBOOKS)
endif

bench: $(STAMP_TEST)
	$(PY) benchmarks/run.py

release: $(STAMP_TEST)
	$(PY) -m autogradkit release --course notebooks

lint: $(STAMP_TEST)
	$(PY) -m ruff check autogradkit tests tools benchmarks
	$(PY) tools/line_count.py

clean:
	rm -rf $(VENV) build *.egg-info
