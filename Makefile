# make lab    - create .venv if needed, install the kit, start JupyterLab on notebooks/ at the
#               edition in the system's language (zh* locale: release/zh-CN/, else release/)
# make test   - create .venv if needed, install test and dev extras, run every stage:
#               lint, unit tests, nbval (each runs even when another failed)
# make bench  - run the benchmarks and print the tables
# Instructors: make notebooks | release | grade ASSIGNMENT=NAME [SCHEDULER=tcp://HOST:PORT] |
#              report ASSIGNMENT=NAME [ANONYMOUS=1] | validate NB=PATH
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP_LAB  := $(VENV)/.installed-lab
STAMP_TEST := $(VENV)/.installed-test
# .ci/run sets STRICT_SKIPS=1: a test skipped for a reason not in tests/allowed_skips.txt fails
STAGES := $(PY) tools/run_stages.py $(if $(STRICT_SKIPS),--allowed-skips tests/allowed_skips.txt)
COURSE ?= notebooks

.PHONY: lab test test-unit test-notebooks lint bench notebooks release grade report validate clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP_LAB): pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[lab]'
	touch $@

$(STAMP_TEST): pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[test,lab,dev]'
	touch $@ $(STAMP_LAB)  # the test extras include the lab ones

# JupyterLab refuses to run as root unless told to (containers and CI machines run as root)
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root,)

# opens the edition in the system's language (LC_ALL, LC_MESSAGES or LANG starting with zh:
# release/zh-CN/, else release/), the other one beside it in the file browser
lab: $(STAMP_LAB)
	$(VENV)/bin/jupyter lab notebooks/ $(LAB_FLAGS) \
		--LabApp.default_url=/lab/tree/$$($(PY) tools/lab_edition.py --course notebooks)

test: $(STAMP_TEST)
	$(STAGES)

test-unit: $(STAMP_TEST)
	$(STAGES) unit

test-notebooks: $(STAMP_TEST)
	$(STAGES) notebooks

lint: $(STAMP_TEST)
	$(STAGES) lint
	$(PY) tools/line_count.py

bench: $(STAMP_TEST)
	$(PY) benchmarks/run.py

# source/NN/NN.py (Jupytext) -> executed source/NN/NN.ipynb, then the student versions of
# every edition: English in release/, each translation in release/LANG/ (docs/translating.md)
TRANSLATIONS := zh-CN
notebooks: $(STAMP_LAB)
	$(PY) -m autogradkit build --course $(COURSE)
	$(MAKE) release

release: $(STAMP_LAB)
	$(PY) -m autogradkit release --course $(COURSE)
	$(foreach lang,$(TRANSLATIONS),$(PY) -m autogradkit release --course $(COURSE) --lang $(lang) &&) true

grade: $(STAMP_LAB)
	@test -n "$(ASSIGNMENT)" || { echo "usage: make grade ASSIGNMENT=NAME [SUBMITTED=$(COURSE)/submitted] [SCHEDULER=tcp://HOST:PORT]" >&2; exit 2; }
	$(PY) -m autogradkit grade $(or $(SUBMITTED),$(COURSE)/submitted) --assignment $(ASSIGNMENT) --course $(COURSE) $(if $(SCHEDULER),--scheduler $(SCHEDULER))

report: $(STAMP_LAB)
	@test -n "$(ASSIGNMENT)" || { echo "usage: make report ASSIGNMENT=NAME [ANONYMOUS=1]" >&2; exit 2; }
	$(PY) -m autogradkit report --assignment $(ASSIGNMENT) --course $(COURSE) $(if $(ANONYMOUS),--anonymous)

validate: $(STAMP_LAB)
	@test -n "$(NB)" || { echo "usage: make validate NB=path/to/notebook.ipynb" >&2; exit 2; }
	$(PY) -m autogradkit validate $(NB)

clean:
	rm -rf $(VENV) build *.egg-info
