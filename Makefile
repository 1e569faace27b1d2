# calico-encap: make setup | make test-unit | make test | make demo
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
STAMPS := .cache/stamps
export PATH := $(CURDIR)/$(VENV)/bin:$(CURDIR)/node_modules/.bin:$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
# Each mocha run appends its counts here; .ci/run sums them into "N passed, N failed".
export TEST_COUNTS ?= $(CURDIR)/.cache/test-counts.jsonl
MOCHA := mocha --reporter $(CURDIR)/test/support/count-reporter.cjs

-include test/lab/lab.mk

.PHONY: help setup build generate check-generated lint test-unit test-ansible test-ansible-versions test-integration test-integration-a test-integration-b test-molecule test bench fixtures demo clean

help:
	@echo "make setup            npm ci, build, Python virtualenv (.venv) with ansible-core, molecule, ansible-lint"
	@echo "make test-unit        unit tests (no cluster)"
	@echo "make test-ansible-versions  test/ansible and the preflight on the lab with Kubespray's Ansible 9, 10, 11"
	@echo "make test             everything: lint, unit, real ansible, the lab"
	@echo "make bench            timings of one check process on fixtures"

$(STAMPS):
	mkdir -p $@

$(STAMPS)/npm: package-lock.json | $(STAMPS)
	npm ci --no-audit --no-fund
	touch $@

$(STAMPS)/venv: requirements.txt requirements-lock.txt | $(STAMPS)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt -c requirements-lock.txt
	touch $@

build: $(STAMPS)/npm
	tsc -p tsconfig.json
	chmod +x dist/src/cli.js

setup: build $(STAMPS)/venv
	ln -sf $(CURDIR)/dist/src/cli.js $(VENV)/bin/calico-encap

generate: build
	node dist/tools/generate.js

check-generated: build
	node dist/tools/generate.js --check

lint: setup
	tsc -p tsconfig.json --noEmit
	node dist/tools/generate.js --check
	eslint .
	prettier --check .
	ansible-lint --profile production ansible molecule

test-unit: build
	$(MOCHA) 'dist/test/unit/**/*.test.js'

test-ansible: setup
	$(MOCHA) --timeout 60000 'dist/test/ansible/**/*.test.js'

# Kubespray's own Ansible (requirements.txt of Kubespray v2.25-v2.28, v2.29-v2.30, v2.31/master): each installed with
# `pip install ansible==X` in a venv of its own, built once and cached by test/ansible-versions/venv.sh. test/ansible
# on each, then the preflight over SSH on one lab with each (test/ansible-versions/lab.test.ts), then one Molecule
# scenario where Molecule supports that ansible-core.
ANSIBLE_VERSIONS := 9.13.0 10.7.0 11.13.0
# Molecule 26.10 requires ansible-core != 2.17.*, >= 2.16.19: one scenario with ansible 9.13.0 and 11.13.0 (not 10.7.0).
MOLECULE_ANSIBLE_VERSIONS := 9.13.0 11.13.0
MOLECULE_VERSIONS_SCENARIO := upgrade_blocked
test-ansible-versions: setup lab-build
	failed=""; venvs=""; \
	for v in $(ANSIBLE_VERSIONS); do \
	  venv=$$(bash test/ansible-versions/venv.sh $$v) || { failed="$$failed venv-$$v"; continue; }; \
	  venvs="$$venvs $$venv"; \
	  echo "== test/ansible with ansible $$v ($$($$venv/bin/ansible --version | sed -n 1p))"; \
	  CALICO_ENCAP_ANSIBLE_VENV=$$venv $(MOCHA) --timeout 60000 'dist/test/ansible/**/*.test.js' || failed="$$failed ansible-$$v"; \
	done; \
	echo "== the preflight over SSH on one lab with ansible$$venvs"; \
	CALICO_ENCAP_ANSIBLE_VENVS="$$venvs" $(MOCHA) --timeout 300000 dist/test/ansible-versions/lab.test.js || failed="$$failed lab"; \
	for v in $(MOLECULE_ANSIBLE_VERSIONS); do \
	  venv=$$(bash test/ansible-versions/venv.sh $$v-molecule) || { failed="$$failed venv-$$v-molecule"; continue; }; \
	  echo "== Molecule $(MOLECULE_VERSIONS_SCENARIO) with ansible $$v"; \
	  PATH=$$venv/bin:$$PATH bash molecule/run-all.sh $(MOLECULE_VERSIONS_SCENARIO) || failed="$$failed molecule-$$v"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-ansible-versions: failed:$$failed"; exit 1; fi

# The integration tests start the lab with the seed profile each needs, and stop it. make test runs them in two
# parts, one per lab slot: the rest and the transition tour's first TOUR_SPLIT transitions (slot A), beside
# Molecule, the Kubespray Ansible versions, the rest of the tour and the tunnel pool tour (slot B); each part of a
# tour starts its own lab.
INTEGRATION := dist/test/integration/**/*.test.js
TOUR := dist/test/integration/transitions.test.js
TUNNEL_TOUR := dist/test/integration/tunnel-pool-tour.test.js
TOUR_SPLIT := 20
test-integration: setup lab-build
	$(MOCHA) --timeout 300000 '$(INTEGRATION)'

test-integration-a: setup lab-build
	failed=0; \
	$(MOCHA) --timeout 300000 --ignore '$(TOUR)' --ignore '$(TUNNEL_TOUR)' '$(INTEGRATION)' || failed=1; \
	TOUR_TO=$(TOUR_SPLIT) $(MOCHA) --timeout 300000 '$(TOUR)' || failed=1; \
	exit $$failed

test-integration-b: setup lab-build
	failed=0; \
	TOUR_FROM=$$(( $(TOUR_SPLIT) + 1 )) $(MOCHA) --timeout 300000 '$(TOUR)' || failed=1; \
	$(MOCHA) --timeout 300000 '$(TUNNEL_TOUR)' || failed=1; \
	exit $$failed

# The Molecule scenarios (molecule/): each starts the lab with the profile it needs and stops it, one after another
# (molecule test -s NAME for each, going on after a failure); one count line per scenario in TEST_COUNTS.
test-molecule: setup lab-build
	bash molecule/run-all.sh

# Records real calicoctl and kubectl output from the lab as unit-test fixtures.
fixtures: setup lab-build
	bash test/lab/record-fixtures.sh

# A second lab slot (state folder, ports, bridge, namespaces, underlay), so two stages that start labs run at once.
# Its ports stay below the kernel's ephemeral range (32768-60999), where an outgoing connection may hold them.
LAB_SLOT_B := LAB_STATE=$(CURDIR)/.lab-b LAB_ETCD_PORT=28790 LAB_ETCD_PEER_PORT=28800 LAB_APISERVER_PORT=28443 \
	LAB_KCM_PORT=28257 LAB_SCHEDULER_PORT=28259 LAB_BRIDGE=calabb LAB_NETNS_PREFIX=calabb- LAB_UNDERLAY=172.31.249

# Runs every stage even when one fails, so one run shows everything; fails at the end if any stage failed.
# The stages without a lab run first; then the integration tests with the tour's first part (lab slot A, the
# default) and, at the same time, Molecule, the Kubespray Ansible versions and the tour's second part (lab slot B,
# their lines prefixed "[slot b]"): the labs mostly wait on their clusters, so two at once take little more than the
# longer of the two.
test: setup lab-build
	rm -f $(TEST_COUNTS) .cache/slot-b.failed
	failed=""; \
	for stage in lint test-unit test-ansible; do \
	  $(MAKE) $$stage || failed="$$failed $$stage"; \
	done; \
	( export $(LAB_SLOT_B); for stage in test-molecule test-ansible-versions test-integration-b; do \
	    $(MAKE) $$stage || echo " $$stage" >>.cache/slot-b.failed; \
	  done ) 2>&1 | sed -u 's/^/[slot b] /' & slot_b=$$!; \
	$(MAKE) test-integration-a || failed="$$failed test-integration-a"; \
	wait $$slot_b; \
	[ ! -f .cache/slot-b.failed ] || failed="$$failed $$(tr -d '\n' <.cache/slot-b.failed)"; \
	if [ -n "$$failed" ]; then echo "make test: failed stages:$$failed"; exit 1; fi

# The demo: ansible/playbooks run by ansible-playbook over SSH against a lab seeded as Kubespray 2.18 left it:
# preflight with the Kubespray 2.19 defaults (blocked), migrate to VXLAN with the prober running, preflight (passes).
demo: setup lab-build
	bash test/lab/demo.sh

bench: build
	node dist/test/bench/check.bench.js

clean:
	rm -rf dist .cache
