# The lab's targets; included by the root Makefile (include test/lab/lab.mk).
#   make lab-build                      build etcd, Kubernetes and calicoctl from Go modules (cached)
#   make lab-up [NODES=3] [PROFILE=kubespray-2.18]
#   make lab-down
#   make lab-status                     JSON
LAB_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
NODES ?= 3
PROFILE ?= kubespray-2.18

.PHONY: lab-build lab-up lab-down lab-status

lab-build:
	bash $(LAB_MK_DIR)/build.sh

lab-up: lab-build
	NODES=$(NODES) PROFILE=$(PROFILE) bash $(LAB_MK_DIR)/lab.sh up

lab-down:
	bash $(LAB_MK_DIR)/lab.sh down

lab-status:
	@bash $(LAB_MK_DIR)/lab.sh status
