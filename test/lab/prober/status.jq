# The prober's figures for `lab.sh status`: the per-node summaries (agent.ts) folded into pairs and totals.
def pairs: [.[] | . as $a | $a.pairs[] | {from: $a.node, to, sent, lost, pending, longest_gap_ms, rate_pps}];
{
  agents: length,
  running: ([.[] | select(.stopped | not)] | length),
  since: ([.[].reset_at] | min),
  sent: ([pairs[].sent] | add // 0),
  lost: ([pairs[].lost] | add // 0),
  longest_gap_ms: ([pairs[].longest_gap_ms] | max // 0),
  rate_pps: ([pairs[].rate_pps] | add // 0 | . * 10 | round / 10),
  pairs: pairs
}
