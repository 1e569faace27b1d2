# The prober's figures for `lab.sh status`: the per-node summaries (agent.ts) folded into pairs and totals, and the
# same totals per address family (an agent without `family` probes IPv4).
def pairs: [.[] | . as $a | $a.pairs[] | {from: $a.node, to, family: ($a.family // "ipv4"), sent, lost, pending, longest_gap_ms, rate_pps}];
def totals(ps): {
  sent: ([ps[].sent] | add // 0),
  lost: ([ps[].lost] | add // 0),
  longest_gap_ms: ([ps[].longest_gap_ms] | max // 0),
  rate_pps: ([ps[].rate_pps] | add // 0 | . * 10 | round / 10)
};
{
  agents: length,
  running: ([.[] | select(.stopped | not)] | length),
  since: ([.[].reset_at] | min),
} + totals(pairs) + {
  families: (pairs | group_by(.family) | map({key: .[0].family, value: totals(.)}) | from_entries),
  pairs: pairs
}
