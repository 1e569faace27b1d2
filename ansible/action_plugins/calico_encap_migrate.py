# -*- coding: utf-8 -*-
# Copyright: calico-encap contributors
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""calico_encap_migrate on the controller: runs the calico-encap backend in bridge mode and its commands on the target.

Everything is in ../plugin_utils/calico_encap_bridge.py; `calico_encap_mode: module` runs library/calico_encap_migrate on the
target instead. Documentation: library/calico_encap_migrate.yml.
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
    MODULE = "calico_encap_migrate"
