# -*- coding: utf-8 -*-
# Copyright: calico-encap contributors
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""The Calico defaults of the user's own Kubespray fork, read from its tree on the controller."""

from __future__ import annotations

DOCUMENTATION = r"""
name: kubespray_calico_defaults
author: calico-encap developers (!UNKNOWN)
short_description: The Calico defaults of a Kubespray fork, read from its tree
description:
  - Finds the Kubespray tree the play runs from (the play's folder or its parent, as a fork's C(cluster.yml) or
    C(playbooks/cluster.yml) sits; else two folders above the inventory, Kubespray's C(inventory/<cluster>/)).
  - Reads the tree's Calico defaults (C(roles/network_plugin/calico_defaults/defaults/main.yml) from Kubespray v2.23,
    C(roles/network_plugin/calico/defaults/main.yml) before) and renders each variable as the fork's own roles would,
    with the play's variables over the file's, over the tree's C(kubespray-defaults) (C(kubespray_defaults) from
    v2.29).
  - Where the file leaves one out, it follows the fork's Calico role. The pool's blockSize, as its
    C(tasks/install.yml) creates the pool (C(calico_pool_blocksize | default(kube_network_node_prefix)) up to
    v2.19); the backend, as its C(calico-config) template writes it when C(calico_network_backend) is undefined
    (C(bird) in v2.18).
  - It also tells whether the fork's Calico role keeps an existing pool's blockSize (its C(tasks/install.yml) merges
    C((_calico_pool_cmd.stdout | from_json).spec.blockSize) over the inventory's, and the same for the IPv6 pool;
    Kubespray v2.22, and v2.24 on) or applies the inventory's (v2.18 to v2.21, v2.23), which Calico refuses.
  - The role calico_encap uses it for the Calico variables an inventory leaves undefined.
options:
  _terms:
    description: The variables to answer, e.g. C(calico_ipip_mode).
    type: list
    elements: str
    required: true
  tree:
    description: The fork's tree; empty to find it from the play's and the inventory's folders.
    type: str
    default: ""
"""

EXAMPLES = r"""
- name: The fork's own defaults of the pool's modes
  ansible.builtin.debug:
    msg: "{{ lookup('calico_encap.kubespray.kubespray_calico_defaults', 'calico_ipip_mode', 'calico_vxlan_mode') }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary. C(tree) the fork's tree (null when none was found), C(searched) the folders looked in,
      C(release) the tree's version (galaxy.yml) or null, C(file) the defaults file read, C(defaults) each variable
      the tree answers with its rendered value, C(missing) each variable it does not answer with the reason,
      C(pool_blocksize_kept) whether the fork's Calico role keeps the live pools' blockSize (false without a tree).
  type: list
  elements: dict
"""

import os
import re

from ansible.errors import AnsibleError
from ansible.module_utils.common.text.converters import to_native
from ansible.plugins.lookup import LookupBase
from ansible.template import Templar

try:  # ansible-core 2.19 and later template only what is trusted; the fork's files are its own code.
    from ansible.template import trust_as_template
except ImportError:  # before 2.19 every string is a template
    trust_as_template = None

DEFAULTS_FILES = (
    "roles/network_plugin/calico_defaults/defaults/main.yml",
    "roles/network_plugin/calico/defaults/main.yml",
)
# Kubespray's own defaults role (kubespray-defaults before v2.29), under the Calico defaults, as a fork's plays load it.
KUBESPRAY_DEFAULTS = (
    "roles/kubespray-defaults/defaults",
    "roles/kubespray_defaults/defaults",
    "roles/kubespray_defaults/defaults/main",
)
INSTALL = "roles/network_plugin/calico/tasks/install.yml"
CALICO_CONFIG = "roles/network_plugin/calico/templates/calico-config.yml.j2"
# install.yml: "blockSize": {{ calico_pool_blocksize | default(kube_network_node_prefix) }}
BLOCKSIZE = {
    "calico_pool_blocksize": re.compile(r'"blockSize":\s*\{\{\s*calico_pool_blocksize\s*\|\s*default\((.+?)\)\s*\}\}'),
    "calico_pool_blocksize_ipv6": re.compile(
        r'"blockSize":\s*\{\{\s*calico_pool_blocksize_ipv6\s*\|\s*default\((.+?)\)\s*\}\}'
    ),
}
# install.yml from v2.22 (not v2.23): the existing pool's blockSize merged over the inventory's, for each family.
BLOCKSIZE_KEPT = (
    re.compile(r"\(\s*_calico_pool_cmd\.stdout\s*\|\s*from_json\s*\)\.spec\.blockSize"),
    re.compile(r"\(\s*_calico_pool_ipv6_cmd\.stdout\s*\|\s*from_json\s*\)\.spec\.blockSize"),
)
# calico-config.yml.j2 before v2.19: {% else %} cluster_type: "kubespray,bgp" calico_backend: "bird" {% endif %}
BACKEND = re.compile(r'\{%\s*else\s*%\}\s*cluster_type:\s*"kubespray,bgp"\s*calico_backend:\s*"(\w+)"')


def _trusted(value):
    if trust_as_template is None:
        return value
    if isinstance(value, str):
        return trust_as_template(value)
    if isinstance(value, dict):
        return {k: _trusted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_trusted(v) for v in value]
    return value


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def find_tree(variables, given):
    """The fork's tree and the folders searched: the first holding a Kubespray Calico defaults file."""
    if given:
        roots = [given]
    else:
        roots = [variables.get("playbook_dir") or "."]
        roots.append(os.path.join(roots[0], ".."))
        inventory = variables.get("inventory_dir")
        if inventory not in (None, "", "None"):
            roots.append(os.path.join(str(inventory), "..", ".."))
    for root in roots:
        for name in DEFAULTS_FILES:
            if os.path.isfile(os.path.join(str(root), name)):
                return os.path.normpath(str(root)), os.path.join(os.path.normpath(str(root)), name), roots
    return None, None, roots


def kubespray_defaults(tree, loader):
    """The variables of the tree's kubespray-defaults role, its files in Ansible's order."""
    merged = {}
    for folder in KUBESPRAY_DEFAULTS:
        d = os.path.join(tree, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith((".yml", ".yaml")) and os.path.isfile(os.path.join(d, name)):
                merged.update(loader.load(_read(os.path.join(d, name))) or {})
    return merged


def release_of(tree, loader):
    """The version galaxy.yml gives (Kubespray v2.24 and later have one), or None."""
    path = os.path.join(tree, "galaxy.yml")
    if not os.path.isfile(path):
        return None
    meta = loader.load(_read(path)) or {}
    if meta.get("namespace") == "kubernetes_sigs" and meta.get("name") == "kubespray":
        return str(meta.get("version"))
    return None


def blocksize_kept(tree):
    """Whether the fork's install.yml keeps both pools' live blockSize rather than apply the inventory's."""
    install = os.path.join(tree, INSTALL)
    text = _read(install) if os.path.isfile(install) else ""
    return all(pattern.search(text) for pattern in BLOCKSIZE_KEPT)


def expressions(tree, path, raw):
    """Each variable's expression as the fork's files write it, before rendering, and the file it comes from."""
    found = {k: (v, path) for k, v in raw.items()}
    install = os.path.join(tree, INSTALL)
    text = _read(install) if os.path.isfile(install) else ""
    for name, pattern in BLOCKSIZE.items():
        m = pattern.search(text)
        if name not in found and m:
            found[name] = ("{{ " + m.group(1).strip() + " }}", install)
    config = os.path.join(tree, CALICO_CONFIG)
    if "calico_network_backend" not in found and os.path.isfile(config):
        m = BACKEND.search(_read(config))
        if m:
            found["calico_network_backend"] = (m.group(1), config)
    return found


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        variables = variables or {}
        tree, path, roots = find_tree(variables, self.get_option("tree"))
        answer = {
            "tree": tree,
            "searched": [os.path.normpath(str(r)) for r in roots],
            "release": None,
            "file": path,
            "defaults": {},
            "missing": {},
            "pool_blocksize_kept": False,
        }
        if tree is None:
            for term in terms:
                answer["missing"][term] = "no Kubespray tree at " + ", ".join(answer["searched"])
            return [answer]
        try:
            raw = self._loader.load(_read(path)) or {}
            base = kubespray_defaults(tree, self._loader)
            answer["release"] = release_of(tree, self._loader)
            answer["pool_blocksize_kept"] = blocksize_kept(tree)
        except Exception as e:  # a tree that cannot be read is an error the user must see
            raise AnsibleError("cannot read the Kubespray tree's Calico defaults at %s: %s" % (path, to_native(e)))
        found = expressions(tree, path, raw)
        exprs = _trusted({name: expr for name, (expr, _source) in found.items()})
        # The play's variables over the fork's Calico defaults over its kubespray-defaults, as Ansible orders role
        # defaults under the inventory.
        context = _trusted(base)
        context.update(exprs)
        context.update(variables)
        templar = Templar(loader=self._loader, variables=context)
        for term in terms:
            if term not in exprs:
                answer["missing"][term] = "neither %s nor %s's Calico role defines a default for it" % (path, tree)
                continue
            try:
                answer["defaults"][term] = templar.template(exprs[term])
            except Exception as e:  # an undefined variable the fork's default reads, say
                answer["missing"][term] = "its default in %s cannot be rendered: %s" % (found[term][1], to_native(e))
        return [answer]
