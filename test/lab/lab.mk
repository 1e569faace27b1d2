# The lab's targets; included by the root Makefile (include test/lab/lab.mk).
#   make lab-build [LAB_BUILD_CALICOS="v3.31.0 v3.30.1"]   build etcd, Kubernetes and Calico from Go modules (cached)
#   make lab-up [NODES=3] [PROFILE=kubespray-2.18] [LAB_CALICO=v3.30.1]
#   make lab-down
#   make lab-status                     JSON
LAB_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
NODES ?= 3
PROFILE ?= kubespray-2.18

.PHONY: lab-build lab-up lab-down lab-status

# LAB_BUILD_CALICOS: the Calico releases whose calicoctl, calico-node and CNI plugin are built (test/lab/lib.sh's
# LAB_CALICO: v3.31.0, the default, or v3.30.1; make test-full builds both).
LAB_BUILD_CALICOS ?= $(or $(LAB_CALICO),v3.31.0)

lab-build:
	for calico in $(LAB_BUILD_CALICOS); do LAB_CALICO=$$calico bash $(LAB_MK_DIR)/build.sh; done

lab-up: lab-build
	NODES=$(NODES) PROFILE=$(PROFILE) bash $(LAB_MK_DIR)/lab.sh up

lab-down:
	bash $(LAB_MK_DIR)/lab.sh down

lab-status:
	@bash $(LAB_MK_DIR)/lab.sh status
