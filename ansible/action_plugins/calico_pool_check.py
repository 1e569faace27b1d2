# -*- coding: utf-8 -*-
# Copyright: calico-encap contributors
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""The action plugin of calico_pool_check, and of calico_encap_migrate (a symlink to this file): runs the module on
the controller in the calico-encap backend's bridge mode and its commands on the target. The module's name is this
file's name. Everything is in ../plugin_utils/calico_encap_bridge.py; `calico_encap_mode: module` runs
library/<module> on the target instead. Documentation: library/<module>.yml.
"""

from __future__ import annotations

import importlib.util
import os
import sys

_NAME = "calico_encap_bridge"
if _NAME not in sys.modules:
    _PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "plugin_utils", _NAME + ".py")
    _SPEC = importlib.util.spec_from_file_location(_NAME, _PATH)
    sys.modules[_NAME] = importlib.util.module_from_spec(_SPEC)
    _SPEC.loader.exec_module(sys.modules[_NAME])


class ActionModule(sys.modules[_NAME].BridgeAction):
    MODULE = os.path.splitext(os.path.basename(__file__))[0]
