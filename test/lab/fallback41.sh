#!/usr/bin/env bash
# Issue 41's idea, by hand, on the lab's node namespaces: during a pool switch on BIRD's path, a routing table of
# its own holding the target encapsulation's route for every remote block, consulted only when the main table has
# nothing more specific than its default route:
#   rule 1040: lookup main suppress_prefixlength 0
#   rule 1041: lookup 1041 (the fallback table)
# Table 1041 is outside Felix's RouteTableRanges (default 1-250; 253-255 reserved) and no rule points at a table of
# Felix's, so Felix's rule manager (which removes only rules whose table it owns) and its route tables (main; the
# WireGuard table) never list it; BIRD's kernel protocol syncs only main (no `kernel table` in confd's bird.cfg).
#
# Each node's routes are derived from its own kernel state at install time:
#   vxlan (into VXLAN): for each route BIRD installed in main (proto bird, via <peer underlay IP>), the same block
#     via the peer's VTEP on vxlan.calico, onlink; the VTEP is found from Felix's permanent FDB entry (MAC dst
#     <peer underlay IP>) and ARP entry (VTEP lladdr MAC) on vxlan.calico.
#   ipip (out of VXLAN): for each block route Felix installed in main via a VTEP on vxlan.calico, the same block as
#     BIRD installs it on this lab: via the peer's underlay IP on eth0 (the lab's stand-in for tunl0; BIRD's
#     krt_tunnel lines are stripped, test/lab/README.md). On a real node: via <peer> dev tunl0 onlink.
#   kept-vxlan (out of VXLAN, the source encapsulation kept instead): Felix's own VXLAN route for each block, copied
#     from main as it is (via the peer's VTEP on vxlan.calico, onlink). It needs no tunl0: vxlan.calico, the VTEPs
#     (the tunnel pool keeps them) and their FDB and ARP entries stay until vxlanEnabled is turned off, after the switch.
#
# Usage: fallback41.sh install vxlan|ipip|kept-vxlan NS...   fallback41.sh remove NS...   fallback41.sh show NS...
set -euo pipefail

TABLE=1041
PRIO_MAIN=1040
PRIO_FALLBACK=1041
UNDERLAY_DEV=${FALLBACK_UNDERLAY_DEV:-eth0}

# "<underlay IP> <VTEP IP>" per VTEP the node's Felix programmed on vxlan.calico.
vteps() {
  local ns=$1
  local -A mac_of_vtep=()
  local vtep mac dst
  while read -r vtep _ mac _; do
    [[ -n $vtep && -n $mac ]] && mac_of_vtep[$mac]=$vtep
  done < <(ip -n "$ns" -4 neigh show dev vxlan.calico nud permanent 2>/dev/null || true)
  while read -r mac _ dst _; do
    [[ -n ${mac_of_vtep[$mac]:-} ]] && echo "$dst ${mac_of_vtep[$mac]}"
  done < <(bridge -n "$ns" fdb show dev vxlan.calico 2>/dev/null | awk '$2 == "dst" {print $1, $2, $3}' || true)
}

install() {
  local mode=$1 ns=$2
  local -A vtep_of_host=() host_of_vtep=()
  local host vtep dst via n=0
  while read -r host vtep; do
    vtep_of_host[$host]=$vtep
    host_of_vtep[$vtep]=$host
  done < <(vteps "$ns")
  ip -n "$ns" route flush table "$TABLE" 2>/dev/null || true
  if [[ $mode == vxlan ]]; then
    while read -r dst via; do
      vtep=${vtep_of_host[$via]:-}
      if [[ -z $vtep ]]; then
        echo "[fallback41] $ns: no VTEP known for $via (route $dst): no fallback for it" >&2
        continue
      fi
      ip -n "$ns" route replace "$dst" via "$vtep" dev vxlan.calico onlink table "$TABLE"
      n=$((n + 1))
    done < <(ip -n "$ns" -4 route show table main proto bird | awk '$2 == "via" {print $1, $3}')
  elif [[ $mode == kept-vxlan ]]; then
    while read -r dst via; do
      [[ $dst == "$via" || $dst == "$via/32" ]] && continue # a VTEP's own route: stays VXLAN
      ip -n "$ns" route replace "$dst" via "$via" dev vxlan.calico onlink table "$TABLE"
      n=$((n + 1))
    done < <(ip -n "$ns" -4 route show table main dev vxlan.calico | awk '$2 == "via" {print $1, $3}')
  else
    while read -r dst via; do
      [[ $dst == "$via" || $dst == "$via/32" ]] && continue # a VTEP's own route: stays VXLAN
      host=${host_of_vtep[$via]:-}
      if [[ -z $host ]]; then
        echo "[fallback41] $ns: no underlay IP known for VTEP $via (route $dst): no fallback for it" >&2
        continue
      fi
      ip -n "$ns" route replace "$dst" via "$host" dev "$UNDERLAY_DEV" table "$TABLE"
      n=$((n + 1))
    done < <(ip -n "$ns" -4 route show table main dev vxlan.calico | awk '$2 == "via" {print $1, $3}')
  fi
  ip -n "$ns" rule del priority "$PRIO_MAIN" 2>/dev/null || true
  ip -n "$ns" rule del priority "$PRIO_FALLBACK" 2>/dev/null || true
  ip -n "$ns" rule add priority "$PRIO_MAIN" lookup main suppress_prefixlength 0
  ip -n "$ns" rule add priority "$PRIO_FALLBACK" lookup "$TABLE"
  echo "[fallback41] $ns: $mode fallback, $n routes in table $TABLE"
}

remove() {
  local ns=$1
  while ip -n "$ns" rule del priority "$PRIO_FALLBACK" 2>/dev/null; do :; done
  while ip -n "$ns" rule del priority "$PRIO_MAIN" 2>/dev/null; do :; done
  ip -n "$ns" route flush table "$TABLE" 2>/dev/null || true
  echo "[fallback41] $ns: removed"
}

show() {
  local ns=$1
  echo "== $ns"
  ip -n "$ns" rule
  ip -n "$ns" route show table "$TABLE" 2>/dev/null || true
}

cmd=${1:-}
shift || true
case $cmd in
install)
  mode=${1:-}
  shift || true
  [[ $mode == vxlan || $mode == ipip || $mode == kept-vxlan ]] || {
    echo "usage: $0 install vxlan|ipip|kept-vxlan NS..." >&2
    exit 2
  }
  for ns in "$@"; do install "$mode" "$ns"; done
  ;;
remove) for ns in "$@"; do remove "$ns"; done ;;
show) for ns in "$@"; do show "$ns"; done ;;
*)
  echo "usage: $0 install vxlan|ipip|kept-vxlan NS... | remove NS... | show NS..." >&2
  exit 2
  ;;
esac
