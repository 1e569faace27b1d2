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
MOCHA := mocha --require $(CURDIR)/dist/test/support/chai-config.js --reporter $(CURDIR)/test/support/count-reporter.cjs

-include test/lab/lab.mk

.PHONY: help setup build collection changelog generate check-generated lint test-unit test-ansible test-ansible-versions test-ansible-suites test-ansible-versions-lab venvs lines-venvs test-collection test-integration seed-era-build kwok-build test-seed-era test-cluster-routes test-lab-queue test-lab-slot test-molecule test test-full test-tier test-times bench bench-scale bench-scale-migrate fixtures demo clean

help:
	@echo "make setup            npm ci, build, Python virtualenv (.venv) with ansible-core, molecule, ansible-lint, the collection"
	@echo "make collection       the Ansible collection calico_encap.kubespray with the backend bundled (dist/collection/)"
	@echo "make changelog        CHANGELOG.md generated from changelogs/ (antsibull-changelog; a change adds a fragment to changelogs/fragments/)"
	@echo "make test-collection  ansible-test sanity (ansible-core 2.16 and 2.19; all four in the full tier), ansible-lint, the changelog check and galaxy-importer on the collection"
	@echo "make test-unit        unit tests (no cluster)"
	@echo "make test-ansible-versions  test/ansible (test-ansible-suites, no lab) and the installed collection on the lab (test-ansible-versions-lab) with Kubespray's Ansible 9, 10, 11"
	@echo "make test             lint, unit, real Ansible, Molecule, the lab: one case per class (its budget: 45 min cold)"
	@echo "make test-full        the same with every tour pair, interrupt chain and Kubespray Ansible version"
	@echo "make test-times       the last run's stages and test files with their durations"
	@echo "make bench            timings of one check process on fixtures"
	@echo "make bench-scale      the check and a migration poll at 3, 100 and 1000 nodes (BENCH_SIZES; kwok on the lab; not in make test)"
	@echo "make bench-scale-migrate  the same, the planner alone, and a whole migration at each size (not in make test)"

$(STAMPS):
	mkdir -p $@

$(STAMPS)/npm: package-lock.json | $(STAMPS)
	npm ci --no-audit --no-fund
	touch $@

# Debian packages the tests without a lab need: dash and busybox, the target shells the bridge's batch program is
# tested under (the lab's own packages: test/lab/build.sh).
$(STAMPS)/debian: tools/debian-packages.sh | $(STAMPS)
	bash tools/debian-packages.sh dash busybox
	touch $@

$(STAMPS)/venv: requirements.txt requirements-lock.txt | $(STAMPS)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt -c requirements-lock.txt
	touch $@

build: $(STAMPS)/npm
	tsc -p tsconfig.json
	chmod +x dist/src/cli.js

setup: build $(STAMPS)/venv $(STAMPS)/debian
	ln -sf $(CURDIR)/dist/src/cli.js $(VENV)/bin/calico-encap
	$(MAKE) --no-print-directory collection

# The Ansible collection calico_encap.kubespray (tools/collection.ts): ansible/, the documentation modules and the
# backend bundled into one file, as dist/collection/calico_encap-kubespray-VERSION.tar.gz.
# A publisher gives the public repository's URL (REPOSITORY=, and ISSUES=, DOCUMENTATION=): galaxy.yml's fields, which
# Galaxy requires; without them the build is for local use and says so.
collection: build $(STAMPS)/venv
	GALAXY_REPOSITORY="$(REPOSITORY)" GALAXY_ISSUES="$(ISSUES)" GALAXY_DOCUMENTATION="$(DOCUMENTATION)" \
	  node dist/tools/collection.js dist/collection

# CHANGELOG.md from changelogs/ (antsibull-changelog, changelogs/config.yaml). A change adds a fragment to
# changelogs/fragments/; a release runs `antsibull-changelog release --version X` (galaxy.yml's version comes from
# package.json, and make test-collection holds the two equal).
changelog: $(STAMPS)/venv
	$(VENV)/bin/antsibull-changelog lint
	$(VENV)/bin/antsibull-changelog generate

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

test-unit: build $(STAMPS)/debian
	$(MOCHA) 'dist/test/unit/**/*.test.js'

# A test of ansible-playbook takes 5-10 s quiet; its timeout is three minutes, since two took over a minute (ansible
# 9.13.0, bridge.test) at load average 30 on 2 cores, with three labs beside the suite (2026-12-04).
test-ansible: setup
	$(MOCHA) --timeout 180000 'dist/test/ansible/**/*.test.js'

# Two tiers (test/support/tier.ts reads CALICO_ENCAP_TIER): `make test` runs the quick tier, `make test-full` the
# full one. Both run every unit, Ansible and Molecule test and every lab test file; the full tier adds the rest of
# the tours (all 42 transitions, the tunnel pool's 12 pairs), every interrupt chain and every Kubespray Ansible
# version. The quick tier keeps one transition of each class (test/support/lab-states.ts, QUICK_WALK), one pair of
# the tunnel pool tour, one interrupt chain per direction, and the oldest and newest of Kubespray's Ansible;
# migrate.test.ts's race of two runs and its kill mid-run, the Kubespray next runs' preflight and pin path, and the
# calico-node roll under BIRD on the recorded kubespray-2.18 lab, run in the full tier only.
TEST_TIER ?= quick
export CALICO_ENCAP_TIER := $(TEST_TIER)
# Each stage's and each test file's time (test/stage.sh, the count reporter); make test-times prints them.
export STAGE_TIMES ?= $(CURDIR)/.cache/stage-times.tsv
export FILE_TIMES ?= $(CURDIR)/.cache/file-times.tsv
export TEST_FAILURES ?= $(CURDIR)/.cache/test-failures.txt
# The machine's speed before the stages (test/speed.sh), so that runs on two machines compare.
export SPEED_TIMES ?= $(CURDIR)/.cache/speed.tsv
STAGE := bash $(CURDIR)/test/stage.sh

# Kubespray's own Ansible (requirements.txt of Kubespray v2.25-v2.28, v2.29-v2.30, v2.31/master): each installed with
# `pip install ansible==X` in a venv of its own, built once and cached by test/ansible-versions/venv.sh. test/ansible
# on each, then the preflight over SSH on one lab with each (test/ansible-versions/lab.test.ts), then one Molecule
# scenario where Molecule supports that ansible-core. The quick tier: ansible-core 2.16 and 2.18 over SSH on the lab,
# Molecule on 2.18, and test/ansible (ANSIBLE_SUITE_VERSIONS) on 2.16 alone, the oldest end of the range (the .venv's
# 2.19 in the test-ansible stage is the newest; issue 50: make test within 45 minutes cold).
ifeq ($(TEST_TIER),full)
ANSIBLE_VERSIONS := 9.13.0 10.7.0 11.13.0
ANSIBLE_SUITE_VERSIONS := $(ANSIBLE_VERSIONS)
# Molecule 26.10 requires ansible-core != 2.17.*, >= 2.16.19: one scenario with ansible 9.13.0 and 11.13.0 (not 10.7.0).
MOLECULE_ANSIBLE_VERSIONS := 9.13.0 11.13.0
else
ANSIBLE_VERSIONS := 9.13.0 11.13.0
ANSIBLE_SUITE_VERSIONS := 9.13.0
MOLECULE_ANSIBLE_VERSIONS := 11.13.0
endif
MOLECULE_VERSIONS_SCENARIO := upgrade_blocked
# The seed's releases on their own Ansible, from their own requirements.txt on pyenv's Python 3.10 (venv.sh
# kubespray-vX.Y.Z): v2.18.2's ansible-base 2.10.15 and v2.19.1's ansible-core 2.12.5. The lab's kubespray-seed.test
# runs their plays over SSH in both tiers; the full tier also runs test/ansible on them.
SEED_VENVS := kubespray-v2.18.2 kubespray-v2.19.1
# On them the full tier runs all of test/ansible; the quick tier the files whose Ansible differs between cores: the
# fork's defaults (a lookup and Jinja), the fallback's cleanup (block, rescue, run_once: 2.10 and 2.12 end a play
# where 2.19 does not), and its rules and coverage (Jinja over ip's JSON and hostvars).
SEED_ANSIBLE_VERSIONS := $(SEED_VENVS)
ifeq ($(TEST_TIER),full)
SEED_ANSIBLE_FILES := 'dist/test/ansible/**/*.test.js'
else
SEED_ANSIBLE_FILES := dist/test/ansible/fork-defaults.test.js dist/test/ansible/fallback-cleanup.test.js \
	dist/test/ansible/fallback-rules.test.js dist/test/ansible/fallback-coverage.test.js
endif
# The Kubespray Ansible venvs the tier needs, built once and cached (venv.sh). make test builds them beside the lab's
# Go builds (pip waits on the network, go build on the cores), so slot B does not wait for them; a venv that fails
# here is built again (or its failure reported) by the stage that needs it.
# A Kubespray v2.31.0 user's venv with the collection's Python requirements (the Node.js wheel): test/ansible/node.test
# runs the installed collection with it and no node on PATH.
COLLECTION_VENV := kubespray-v2.31.0+collection
# The venvs of the Kubespray lines kubespray-lines.test runs on their own Ansible (quick tier; the full tier builds the
# rest where a test asks): make test builds them in the background from its start, beside the Go builds, so that the
# lab slot that runs the file does not (issue 50: cold, kubespray-lines took 707 s of slot A, building them). A test
# that asks for one still being built waits on venv.sh's lock.
LINES_VENVS := kubespray-v2.20.0 kubespray-v2.22.2 kubespray-v2.23.3 kubespray-v2.24.3 10.7.0
# $(call build-venvs,VENVS,WHO BUILDS A FAILED ONE AGAIN): builds each venv (venv.sh) in turn; one that fails is a line
# "venv V failed; ..." and not an error, since the stage that needs it builds it again (or reports its failure).
define build-venvs
@for v in $(1); do \
  bash test/ansible-versions/venv.sh $$v >/dev/null || echo "venv $$v failed; $(2)"; \
done
endef
lines-venvs:
	$(call build-venvs,$(LINES_VENVS),kubespray-lines.test builds it again)
venvs:
	$(call build-venvs,$(ANSIBLE_VERSIONS) $(addsuffix -molecule,$(MOLECULE_ANSIBLE_VERSIONS)) $(SEED_VENVS) \
	  $(COLLECTION_VENV) galaxy-importer,the stage that needs it builds it again)
# test/ansible with Kubespray's Ansible needs no lab: make test runs it beside the lab's Go builds (test-ansible-suites),
# and slot B the rest on its lab (test-ansible-versions-lab): the preflight over SSH with each, then Molecule.
test-ansible-versions: test-ansible-suites test-ansible-versions-lab
test-ansible-suites: setup
	failed=""; \
	for v in $(ANSIBLE_SUITE_VERSIONS); do \
	  venv=$$(bash test/ansible-versions/venv.sh $$v) || { failed="$$failed venv-$$v"; continue; }; \
	  echo "== test/ansible with ansible $$v ($$($$venv/bin/ansible --version | sed -n 1p))"; \
	  CALICO_ENCAP_ANSIBLE_VENV=$$venv $(MOCHA) --timeout 180000 'dist/test/ansible/**/*.test.js' || failed="$$failed ansible-$$v"; \
	done; \
	for v in $(SEED_ANSIBLE_VERSIONS); do \
	  venv=$$(bash test/ansible-versions/venv.sh $$v) || { failed="$$failed venv-$$v"; continue; }; \
	  echo "== test/ansible ($(notdir $(SEED_ANSIBLE_FILES))) with $$v's own Ansible ($$($$venv/bin/ansible --version | sed -n 1p))"; \
	  CALICO_ENCAP_ANSIBLE_VENV=$$venv $(MOCHA) --timeout 180000 $(SEED_ANSIBLE_FILES) || failed="$$failed ansible-$$v"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-ansible-suites: failed:$$failed"; exit 1; fi
test-ansible-versions-lab: setup lab-build
	failed=""; venvs=""; \
	for v in $(ANSIBLE_VERSIONS); do \
	  venv=$$(bash test/ansible-versions/venv.sh $$v) || { failed="$$failed venv-$$v"; continue; }; \
	  venvs="$$venvs $$venv"; \
	done; \
	echo "== the preflight over SSH on one lab with ansible$$venvs"; \
	CALICO_ENCAP_ANSIBLE_VENVS="$$venvs" $(MOCHA) --timeout 300000 dist/test/ansible-versions/lab.test.js || failed="$$failed lab"; \
	for v in $(MOLECULE_ANSIBLE_VERSIONS); do \
	  venv=$$(bash test/ansible-versions/venv.sh $$v-molecule) || { failed="$$failed venv-$$v-molecule"; continue; }; \
	  echo "== Molecule $(MOLECULE_VERSIONS_SCENARIO) with ansible $$v"; \
	  PATH=$$venv/bin:$$PATH bash molecule/run-all.sh $(MOLECULE_VERSIONS_SCENARIO) || failed="$$failed molecule-$$v"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-ansible-versions-lab: failed:$$failed"; exit 1; fi

# The collection as built: ansible-test sanity (test/collection/sanity.sh) with each ansible-core that
# meta/runtime.yml allows (SANITY_CORES in tools/collection-content.ts: 2.16 in ansible 9.13.0's venv, 2.17 in
# 10.7.0's, 2.18 in 11.13.0's, 2.19 in the tooling .venv), then ansible-lint's production profile on it as installed
# (test/collection/lint.sh), and its changelog (test/collection/changelog.sh). The quick tier: 2.16 and 2.19, the ends of the range.
ifeq ($(TEST_TIER),full)
SANITY_VENVS := 9.13.0 10.7.0 11.13.0
else
SANITY_VENVS := 9.13.0
endif
TARBALL = $(shell bash test/collection/tarball.sh)
test-collection: setup
	venvs=""; for v in $(SANITY_VENVS); do venvs="$$venvs $$(bash test/ansible-versions/venv.sh $$v)" || exit 1; done; \
	failed=""; \
	bash test/collection/sanity.sh $(TARBALL) $$venvs $(VENV) || failed="$$failed sanity"; \
	bash test/collection/lint.sh $(TARBALL) || failed="$$failed ansible-lint"; \
	bash test/collection/changelog.sh $(TARBALL) $(VENV) || failed="$$failed changelog"; \
	bash test/collection/importer.sh "$$(bash test/ansible-versions/venv.sh galaxy-importer)" $(TARBALL) || failed="$$failed galaxy-importer"; \
	if [ -n "$$failed" ]; then echo "test-collection: failed:$$failed"; exit 1; fi

# The integration tests start the lab with the seed profile each needs, and stop it. make test and test-full put
# every lab test file in one queue (LAB_QUEUE, longest first, as last measured) that both lab slots take from: slot
# A from the start, slot B after Molecule and the Kubespray Ansible versions (test/lab-queue.sh). Each file is a
# stage of its own, its time printed. In the full tier the transition tour runs in two parts, each on its own lab.
INTEGRATION := dist/test/integration/**/*.test.js
I := dist/test/integration
TOUR_SPLIT := 20
# scale.test polls 100 nodes in make test, and 1000 as well in the full tier (issue 40).
# make test runs real-calico-node.test and bird-path-fallback.test on the seed's Calico (v3.22.0, below); the full tier
# runs them on v3.31.0 as well (bird-path-fallback there: the way out of VXLAN without ipip_tunnel_pool_cidr keeps
# BIRD's path) and builds Calico v3.30.1 and v3.29.0 (the calico-node, CNI plugin and calicoctl of each,
# test/lab/lib.sh): it runs both once more on v3.30.1 (issue 41's second minor), and Kubespray v2.28.1's and v2.30.0's
# rows of kubespray-role.test on the nearest Calico to theirs the Go module proxy serves (v3.29.0 for v3.29.5, v3.30.1
# for v3.30.6).
ifeq ($(TEST_TIER),full)
TOUR_ENTRIES := "transitions 1-$(TOUR_SPLIT)|TOUR_TO=$(TOUR_SPLIT)|$(I)/transitions.test.js" \
	"transitions $$(( $(TOUR_SPLIT) + 1 ))-42|TOUR_FROM=$$(( $(TOUR_SPLIT) + 1 ))|$(I)/transitions.test.js"
OTHER_CALICO_ENTRIES := "real-calico-node||$(I)/real-calico-node.test.js" \
	"real-calico-node on Calico v3.30.1|LAB_CALICO=v3.30.1|$(I)/real-calico-node.test.js" \
	"bird-path-fallback on Calico v3.30.1|LAB_CALICO=v3.30.1|$(I)/bird-path-fallback.test.js" \
	"bird-path-fallback on Calico v3.31.0||$(I)/bird-path-fallback.test.js" \
	"kubespray-role v2.28.1 on Calico v3.29.0|LAB_CALICO=v3.29.0 KUBESPRAY_RELEASE=v2.28.1|$(I)/kubespray-role.test.js" \
	"kubespray-role v2.30.0 on Calico v3.30.1|LAB_CALICO=v3.30.1 KUBESPRAY_RELEASE=v2.30.0|$(I)/kubespray-role.test.js"
LAB_BUILD_CALICOS := v3.31.0 v3.30.1 v3.29.0
SCALE_ENTRIES := "scale||$(I)/scale.test.js|kwok" "scale at 1000 nodes|SCALE_NODES=1000|$(I)/scale.test.js|kwok"
else
SCALE_ENTRIES := "scale||$(I)/scale.test.js|kwok"
TOUR_ENTRIES := "transitions||$(I)/transitions.test.js"
OTHER_CALICO_ENTRIES :=
endif
# The seed's Calico (issue 36): calico-node, the CNI plugin and calicoctl v3.22.0 (the minor Kubespray v2.19.1 deploys;
# v3.22.3 itself is not served by the Go module proxy) on kube-apiserver, kube-controller-manager and kube-scheduler
# v1.24.17 (the last minor serving discovery.k8s.io/v1beta1 EndpointSlices, which Felix v3.21/v3.22 lists). Built in
# the background beside lab-build from the start (the seed-era-build stage, nice 19: about 13 min of Go builds cold,
# under a minute warm), while the other stages and then the slots run; the files on it wait in the queue until it is
# done.
# kubespray-seed runs there only: Kubespray v2.18.2's role installs that Calico and v2.19.1's role breaks it, as in
# the seed; real-calico-node's migrations run there on Felix before v3.23 (BIRD's path), and on v3.31.0 in the full tier
# (Felix's path on v3.31 is in make test through the tours, interrupt, migrate and waits); bird-path-fallback runs
# issue 41's stop_before and the role's fallback both ways on BIRD's path there (on v3.31 the way into VXLAN is Felix's).
SEED_ERA_CALICO ?= v3.22.0
SEED_ERA := LAB_CALICO=$(SEED_ERA_CALICO) LAB_KUBERNETES=v1.24
SEED_ERA_ENTRIES := "kubespray-seed on Calico $(SEED_ERA_CALICO)|$(SEED_ERA)|$(I)/kubespray-seed.test.js|seed-era" \
	"real-calico-node on Calico $(SEED_ERA_CALICO)|$(SEED_ERA)|$(I)/real-calico-node.test.js|seed-era" \
	"bird-path-fallback on Calico $(SEED_ERA_CALICO)|$(SEED_ERA)|$(I)/bird-path-fallback.test.js|seed-era"
LAB_QUEUE_ENTRIES := $(TOUR_ENTRIES) "tunnel-pool-tour||$(I)/tunnel-pool-tour.test.js" $(SEED_ERA_ENTRIES) \
	$(foreach f,interrupt dualstack,"$(f)||$(I)/$(f).test.js") $(OTHER_CALICO_ENTRIES) \
	$(foreach f,kubespray-role kubespray-lines migrate role human check waits least-privilege lab-can-fail bridge-ssh ssh lab-dataplane standin,"$(f)||$(I)/$(f).test.js") \
	$(SCALE_ENTRIES)
LAB_QUEUE := $(CURDIR)/.cache/lab-queue
export MOCHA

test-integration: setup lab-build
	$(MOCHA) --timeout 300000 '$(INTEGRATION)'

# The seed era's lab files alone, on SEED_ERA_CALICO (v3.22.0, or v3.21.4: the #8691 reporter's calico/node), in any
# lab slot; it builds that Calico's binaries and Kubernetes v1.24.17's first (about 15 min cold on 2 cores).
# Its own six binaries only (LAB_BUILD_ONLY): etcd and kubectl are lab-build's, so that make test can run both builds
# at once without building those two twice into one place.
SEED_ERA_BINARIES := kube-apiserver kube-controller-manager kube-scheduler calicoctl calico-node calico-cni
seed-era-build: setup lab-build
	$(SEED_ERA) LAB_BUILD_ONLY="$(SEED_ERA_BINARIES)" bash test/lab/build.sh

# kwok, for scale.test's and bench-scale's simulated nodes (8 min cold at nice 19): built in the same background stage
# after the seed era's binaries, so a cold lab-build does not wait on it; scale.test waits in the queue until it is.
kwok-build: setup
	bash test/lab/kwok-nodes.sh build

test-seed-era: seed-era-build
	$(SEED_ERA) $(MOCHA) --timeout 900000 $(I)/kubespray-seed.test.js $(I)/real-calico-node.test.js

# Felix owning the routes through the switch (issue 20; programClusterRoutes on the lab's tunl0 stand-in): run by
# hand in any lab slot, in no tier yet.
test-cluster-routes: setup lab-build
	$(MOCHA) --timeout 900000 dist/test/lossless/cluster-routes.test.js

# Every lab test file, queued; test-lab-slot runs what it takes from the queue in the lab slot of its environment.
test-lab-queue: setup lab-build
	@n=$$(ls $(I)/*.test.js | wc -l); q=$$(printf '%s\n' $(LAB_QUEUE_ENTRIES) | awk -F'|' '{print $$3}' | sort -u | wc -l); \
	  [ "$$n" -eq "$$q" ] || { echo "LAB_QUEUE_ENTRIES names $$q of the $$n files in $(I): add the new one"; exit 1; }
	bash test/lab-queue.sh fill $(LAB_QUEUE) $(LAB_QUEUE_ENTRIES)

test-lab-slot: setup lab-build
	bash test/lab-queue.sh run $(LAB_QUEUE) "$(SLOT)"

# The Molecule scenarios (molecule/): each starts the lab with the profile it needs and stops it, one after another
# (molecule test -s NAME for each, going on after a failure); one count line per scenario in TEST_COUNTS. The full
# tier runs all six; the quick tier one (issue 50): upgrade_blocked, the preflight from the installed collection. The
# others' classes stay in make test elsewhere: a migration and its second run changing nothing (role.test's
# migrate.yml), check mode (test/ansible, migrate.test), a killed run resumed (interrupt.test), a preflight that passes
# (check.test, kubespray-seed's matrix), VXLAN -> IPIP (migrate.test, the tour).
ifeq ($(TEST_TIER),full)
MOLECULE_SCENARIOS :=
else
MOLECULE_SCENARIOS := upgrade_blocked
endif
test-molecule: setup lab-build
	bash molecule/run-all.sh $(MOLECULE_SCENARIOS)

# Records real calicoctl and kubectl output from the lab as unit-test fixtures.
fixtures: setup lab-build seed-era-build
	bash test/lab/record-fixtures.sh

# A second lab slot (state folder, ports, bridge, namespaces, underlay), so two stages that start labs run at once.
# Its ports stay below the kernel's ephemeral range (32768-60999), where an outgoing connection may hold them.
# LAB_SLOT_A (empty: lab.sh's defaults) and LAB_SLOT_B can be given on the command line, so that a second make test
# or test-full runs beside one already running, on labs of its own; LAB_SLOT_C is a third set for such a run by hand.
# make test runs two slots, not three: with a third (2026-12-07, load 25-30 on 2 cores) each file took about a third
# longer, so three slots did little more than two, and two tests lost to the load (64 probes lost in a Kubespray role
# run that changed nothing, a run's first step not logged in time).
LAB_SLOT_A ?=
LAB_SLOT_B ?= LAB_STATE=$(CURDIR)/.lab-b LAB_ETCD_PORT=28790 LAB_ETCD_PEER_PORT=28800 LAB_APISERVER_PORT=28443 \
	LAB_KCM_PORT=28257 LAB_SCHEDULER_PORT=28259 LAB_BRIDGE=calabb LAB_NETNS_PREFIX=calabb- LAB_UNDERLAY=172.31.249
LAB_SLOT_C ?= LAB_STATE=$(CURDIR)/.lab-c LAB_ETCD_PORT=22790 LAB_ETCD_PEER_PORT=22800 LAB_APISERVER_PORT=22443 \
	LAB_KCM_PORT=22257 LAB_SCHEDULER_PORT=22259 LAB_BRIDGE=calabc LAB_NETNS_PREFIX=calabc- LAB_UNDERLAY=172.31.248

# Runs every stage even when one fails, so one run shows everything; fails at the end if any stage failed. Each
# stage prints its duration (make test-times lists them). The stages without a lab run first, beside the lab's Go
# builds (whose module downloads wait on the network more than on the cores; lines "[lab-build]"). Lab slot A takes
# from the queue as soon as lab-build is done, beside whatever of those stages is left (lines "[slot a]": warm, lab-build
# ends at once and the queue gains the 6 min those stages take); lab slot B starts once they are done, with Molecule,
# the Kubespray Ansible versions and then the queue (lines "[slot b]"): two labs at once take little more than the
# longer, a third did not pay (below).
# The seed era's and kwok's builds start with lab-build at nice 19 (issue 50: a slow machine spent 45 min on them when
# they started after it, and the files that wait on them ran last): they take the cores the other stages leave idle
# (module downloads, pip), and the lab queue is filled first so their "built" signals find it. Once lab-build is done
# the seed era's build runs at the labs' niceness (test/renice-tree.sh): at 19 behind two labs it got no core at all.
test: 
	$(MAKE) TEST_TIER=quick test-tier

# The full tier: every tour pair, every interrupt chain, every Kubespray Ansible version (about 90 min; its last
# figures are in test/bench/FIGURES.md).
test-full:
	$(MAKE) TEST_TIER=full test-tier

# Once setup and lab-build ran, the stages do not build again: a tsc in one slot would rewrite dist/ under the
# other slot's running tests.
BUILT := -o setup -o build -o collection -o lab-build -o $(STAMPS)/npm -o $(STAMPS)/venv -o $(STAMPS)/debian

test-tier:
	rm -f $(TEST_COUNTS) $(STAGE_TIMES) $(FILE_TIMES) $(TEST_FAILURES) .cache/slot-a.failed .cache/slot-b.failed .cache/lab-build.failed .cache/lab-build.ended .cache/seed-era-build.pid .cache/collection.failed .cache/background-builds.failed
	mkdir -p .cache && date +%s >.cache/run-start && echo $(TEST_TIER) >.cache/run-tier
	bash test/speed.sh
	failed=""; \
	$(STAGE) setup $(MAKE) setup || failed="$$failed setup"; \
	$(STAGE) test-lab-queue $(MAKE) $(BUILT) test-lab-queue || failed="$$failed test-lab-queue"; \
	( $(STAGE) lab-build $(MAKE) lab-build || echo " lab-build" >.cache/lab-build.failed; touch .cache/lab-build.ended ) 2>&1 | \
	  sed -u 's/^/[lab-build] /' & build=$$!; \
	( echo $$BASHPID >.cache/seed-era-build.pid; if nice -n 19 $(STAGE) seed-era-build $(MAKE) $(BUILT) seed-era-build; then s=done; else s=failed; fi; \
	  bash test/lab-queue.sh built $(LAB_QUEUE) seed-era $$s; [ $$s = done ] || echo " seed-era-build" >.cache/background-builds.failed; \
	  if nice -n 19 $(STAGE) kwok-build $(MAKE) $(BUILT) kwok-build; then s=done; else s=failed; fi; \
	  bash test/lab-queue.sh built $(LAB_QUEUE) kwok $$s; [ $$s = done ] || echo " kwok-build" >>.cache/background-builds.failed ) 2>&1 | \
	  sed -u 's/^/[seed-era-build] /' & seed_era=$$!; \
	( nice -n 10 $(STAGE) lines-venvs $(MAKE) $(BUILT) lines-venvs || true ) 2>&1 | sed -u 's/^/[lines-venvs] /' & lines_venvs=$$!; \
	( $(STAGE) venvs $(MAKE) $(BUILT) venvs || true; \
	  $(STAGE) test-collection $(MAKE) $(BUILT) test-collection || echo " test-collection" >.cache/collection.failed ) 2>&1 | \
	  sed -u 's/^/[venvs] /' & venvs=$$!; \
	( while [ ! -f .cache/lab-build.ended ]; do sleep 2; done; \
	  bash test/renice-tree.sh "$$(cat .cache/seed-era-build.pid)" 0; \
	  $(if $(strip $(LAB_SLOT_A)),export $(LAB_SLOT_A);) $(MAKE) $(BUILT) test-lab-slot SLOT="slot a" || echo " slot-a-lab-tests" >.cache/slot-a.failed ) 2>&1 | \
	  sed -u 's/^/[slot a] /' & slot_a=$$!; \
	for stage in lint test-unit test-ansible test-ansible-suites; do \
	  $(STAGE) $$stage $(MAKE) $(BUILT) $$stage || failed="$$failed $$stage"; \
	done; \
	wait $$build; wait $$venvs; \
	[ ! -f .cache/lab-build.failed ] || failed="$$failed lab-build"; \
	[ ! -f .cache/collection.failed ] || failed="$$failed test-collection"; \
	( export $(LAB_SLOT_B); for stage in test-molecule test-ansible-versions-lab; do \
	    $(STAGE) "slot b: $$stage" $(MAKE) $(BUILT) $$stage || echo " $$stage" >>.cache/slot-b.failed; \
	  done; \
	  $(MAKE) $(BUILT) test-lab-slot SLOT="slot b" || echo " slot-b-lab-tests" >>.cache/slot-b.failed ) 2>&1 | sed -u 's/^/[slot b] /' & slot_b=$$!; \
	wait $$slot_a; wait $$slot_b; wait $$lines_venvs; \
	[ ! -f .cache/slot-a.failed ] || failed="$$failed $$(tr -d '\n' <.cache/slot-a.failed)"; \
	wait $$seed_era; [ ! -f .cache/background-builds.failed ] || failed="$$failed $$(tr -d '\n' <.cache/background-builds.failed)"; \
	[ ! -f .cache/slot-b.failed ] || failed="$$failed $$(tr -d '\n' <.cache/slot-b.failed)"; \
	bash test/times.sh; \
	if [ -n "$$failed" ]; then echo "make test ($(TEST_TIER) tier): failed stages:$$failed"; exit 1; fi

# The last run's stages and test files with their durations.
test-times:
	@bash test/times.sh

# The demo: ansible/playbooks run by ansible-playbook over SSH against a lab Kubespray v2.18.2's own role installed:
# preflight with the Kubespray 2.19 defaults (blocked), migrate to VXLAN with the prober running, preflight (passes).
demo: setup lab-build
	bash test/lab/demo.sh

bench: build
	node dist/test/bench/check.bench.js

# Issue 40: the check and one migration poll at 3, 100 and 1000 nodes (BENCH_SIZES), kwok's simulated nodes on a lab
# of Kubespray v2.18.2's Calico (test/bench/scale.sh; FIGURES.md). Not part of make test. Brings its lab up and down.
bench-scale: build lab-build kwok-build
	rc=0; bash test/lab/lab.sh up kubespray-2.18 && . $${LAB_STATE:-$(CURDIR)/.lab}/env && bash test/bench/scale.sh \
		|| rc=$$?; bash test/lab/lab.sh down; exit $$rc

# Issue 40: bench-scale with a whole migration (IPIP/bird to VXLAN/vxlan, the roll simulated by kwok at the DaemonSet's
# maxUnavailable, back again before the next size) and the planner alone at each size (test/bench/scale-migrate.sh,
# plan.bench.ts). About 25 min at 3, 100 and 1000 nodes on 2 cores; in no test tier.
bench-scale-migrate:
	BENCH_MIGRATE=1 BENCH_PLAN=1 $(MAKE) bench-scale

clean:
	rm -rf dist .cache
