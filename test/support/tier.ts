// Which tier of the lab suite this run is: `make test` runs the quick tier (one transition per class, one
// interrupt chain per direction, Kubespray's newest Ansible), `make test-full` the full one (every tour pair, every
// interrupt chain, every Ansible version). One owner: the tests ask TIER, nothing else reads CALICO_ENCAP_TIER.

export type Tier = "quick" | "full";

/** The tier named by CALICO_ENCAP_TIER (unset: quick); any other value is an error, not a silent default. */
export function tierOf(value: string | undefined): Tier {
  if (value === undefined || value === "" || value === "quick") return "quick";
  if (value === "full") return "full";
  throw new Error(`CALICO_ENCAP_TIER must be quick or full, got '${value}'`);
}

export const TIER: Tier = tierOf(process.env.CALICO_ENCAP_TIER);
