# make lab    - create .venv if needed, install the kit, start JupyterLab on notebooks/ at the
#               edition in the system's language (zh_TW, zh_HK: release/zh-TW/; other zh*:
#               release/zh-CN/; else release/)
# make course - create .venv if needed, install the kit with JupyterLab and the grading tools
#               (the [lab] and [grade] extras) and pytest for the shortcut tests, start
#               nothing: an instructor's set-up
# make test   - create .venv if needed, install test and dev extras, run every stage:
#               lint, unit tests, nbval (each runs even when another failed)
# make bench  - run the benchmarks and print the tables
# Instructors: make course, then make notebooks | release [ASSIGNMENT=NAME] (all when none is
#              named), make grade ASSIGNMENT=NAME [SCHEDULER=tcp://HOST:PORT] | report
#              ASSIGNMENT=NAME [ANONYMOUS=1] | validate NB=PATH (docs/instructor_guide.md)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# the instructor's command, from the package autogradkit_instructor
AGK    := $(VENV)/bin/autogradkit
STAMP_LAB  := $(VENV)/.installed-lab
STAMP_TEST := $(VENV)/.installed-test
STAMP_COURSE := $(VENV)/.installed-course
# .ci/run sets STRICT_SKIPS=1: a test skipped for a reason not in tests/allowed_skips.txt fails
STAGES := $(PY) tools/run_stages.py $(if $(STRICT_SKIPS),--allowed-skips tests/allowed_skips.txt)
COURSE ?= notebooks
# make splits words on spaces: a name with one would become two names
ifneq ($(word 2,$(ASSIGNMENT)),)
$(error ASSIGNMENT='$(ASSIGNMENT)' has a space, which make cannot pass on: run the command \
	itself with the name quoted, e.g. $(VENV)/bin/autogradkit release --course $(COURSE) \
	'$(ASSIGNMENT)' (grade and report: --assignment '$(ASSIGNMENT)'))
endif

.PHONY: lab course test test-unit test-notebooks lint bench notebooks release grade report validate clean

# a venv that failed half-way (Debian's python3 without python3-venv) is removed: the next
# make would take it for made
$(PY):
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); exit 1; }
	$(PIP) install --quiet --upgrade pip

# the grade extra adds nothing the lab one lacks today; it is named so that it stays so
$(STAMP_LAB): pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[lab,grade]'
	touch $@

$(STAMP_TEST): pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[test,lab,grade,dev]'
	touch $@ $(STAMP_LAB) $(STAMP_COURSE)  # the test extras include the lab and course ones

# an instructor runs their shortcut tests (tests/notebooks/test_exercises_NN.py) with pytest;
# tests/conftest.py sets hypothesis's profile
$(STAMP_COURSE): $(STAMP_LAB)
	$(PIP) install --quiet 'pytest>=8' 'hypothesis>=6'
	touch $@

# JupyterLab refuses to run as root unless told to (containers and CI machines run as root)
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root,)

# opens the edition in the system's language (LC_ALL, LC_MESSAGES or LANG: zh_TW, zh_HK, zh_MO
# or zh_Hant: release/zh-TW/; another zh*: release/zh-CN/; else release/), the others beside it
# in the file browser
lab: $(STAMP_LAB)
	$(VENV)/bin/jupyter lab notebooks/ $(LAB_FLAGS) \
		--LabApp.default_url=/lab/tree/$$($(PY) tools/lab_edition.py --course notebooks)

course: $(STAMP_COURSE)
	@echo "ready: $(VENV)/bin/autogradkit --help lists the commands; docs/instructor_guide.md"

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
# every edition: English in release/, each translation in release/LANG/ (docs/translating.md).
# ASSIGNMENT=NAME builds and releases that one alone; without it, every assignment. Releasing
# a notebook whose source did not change changes no byte of its release copies.
notebooks: $(STAMP_LAB)
	$(AGK) build --course $(COURSE) $(ASSIGNMENT)
	$(MAKE) release

# the languages ASSIGNMENT (any assignment, when none is named) is translated into: LANG of
# each source/NN/NN.LANG.md. zh-TW is made from zh-CN first (tools/make_zh_tw.py: OpenCC), in
# this repository (a project of its own, without the tool, releases the zh-TW texts it has)
MAKE_ZH_TW = $(if $(wildcard tools/make_zh_tw.py),$(PY) tools/make_zh_tw.py --course $(COURSE) &&)
TRANSLATIONS = $(sort $(subst .,,$(suffix $(basename $(wildcard $(COURSE)/source/$(or $(ASSIGNMENT),*)/*.*.md)))))
release: $(STAMP_LAB)
	$(MAKE_ZH_TW) $(foreach lang,en $(TRANSLATIONS),$(AGK) release --course $(COURSE) --lang $(lang) $(ASSIGNMENT) &&) true

grade: $(STAMP_LAB)
	@test -n "$(ASSIGNMENT)" || { echo "usage: make grade ASSIGNMENT=NAME [SUBMITTED=$(COURSE)/submitted] [SCHEDULER=tcp://HOST:PORT]" >&2; exit 2; }
	$(AGK) grade $(or $(SUBMITTED),$(COURSE)/submitted) --assignment $(ASSIGNMENT) --course $(COURSE) $(if $(SCHEDULER),--scheduler $(SCHEDULER))

report: $(STAMP_LAB)
	@test -n "$(ASSIGNMENT)" || { echo "usage: make report ASSIGNMENT=NAME [ANONYMOUS=1]" >&2; exit 2; }
	$(AGK) report --assignment $(ASSIGNMENT) --course $(COURSE) $(if $(ANONYMOUS),--anonymous)

# a collected submission runs with its assignment's released files: from COURSE when it is
# given, else from the course the notebook sits in (a student's copy: the files beside it)
validate: $(STAMP_LAB)
	@test -n "$(NB)" || { echo "usage: make validate NB=path/to/notebook.ipynb" >&2; exit 2; }
	$(AGK) validate $(NB) $(if $(filter command line environment,$(origin COURSE)),--course $(COURSE))

clean:
	rm -rf $(VENV) build *.egg-info
