// The prober's files: the agent's configuration and the summary it writes to <LAB_STATE>/prober/<node>.json.

/** The address family an agent probes in: its own address and its targets' are all of it. */
export type Family = "ipv4" | "ipv6";

export interface AgentConfig {
  node: string;
  /** The node's pod address the agent binds and probes from. */
  address: string;
  /** Absent: ipv4 (agents started before IPv6 probes existed, and every IPv4-only lab). */
  family?: Family;
  port: number;
  intervalMs: number;
  /** A probe without an echo within this long is lost. */
  timeoutMs: number;
  /** The agent stops by itself after this long. */
  maxSeconds: number;
  /** The receive buffer the agent asks its socket for (SO_RCVBUF, capped by net.core.rmem_max); 4 MiB unless said. */
  recvBufferBytes?: number;
  /** Summary file. */
  out: string;
  targets: { node: string; address: string }[];
}

export interface PairSummary {
  to: string;
  address: string;
  sent: number;
  received: number;
  lost: number;
  /** Sent, neither echoed nor timed out yet. */
  pending: number;
  /** Echoes that came after their probe was counted lost. */
  late: number;
  send_errors: number;
  longest_gap_ms: number;
  /**
   * The longest gap with a lost probe sent inside it (outage-gap.ts): 0 when nothing was lost, whatever the agent's
   * own stalls made of longest_gap_ms. Absent from agents older than this field.
   */
  longest_outage_ms?: number;
  /** When the first and the last lost probe were sent (ISO 8601); null when none was lost. */
  first_lost_at: string | null;
  last_lost_at: string | null;
  /**
   * Runs of lost probes: send times of the first and last probe of each run (ISO 8601) and how many were lost; at
   * most 100 per pair (later runs count in lost only). Absent from agents older than this field.
   */
  outages?: Outage[];
  rate_pps: number;
}

export interface Outage {
  from: string;
  to: string;
  lost: number;
  /**
   * How many of them were sent as catch-up: after the agent's timer fell behind, a tick sends the rounds it owes at
   * once, all stamped with that tick's time. Absent from agents older than this field.
   */
  caught_up?: number;
}

export interface ProberSummary {
  node: string;
  address: string;
  family: Family;
  pid: number;
  /** Incremented by each reset; echoes from an older epoch are ignored. */
  epoch: number;
  /** False until the pod address exists and the socket is bound (nothing is sent before). */
  bound: boolean;
  stopped: boolean;
  started_at: string;
  reset_at: string;
  written_at: string;
  elapsed_s: number;
  interval_ms: number;
  timeout_ms: number;
  echoed: number;
  /** The agent's network namespace (`net:[inode]`); absent from agents older than this field. */
  netns?: string;
  /**
   * UDP datagrams of the agent's family its namespace's kernel dropped since the reset because a socket's receive
   * buffer was full (RcvbufErrors): delivered by the network, lost by a stalled agent. Null where the kernel does not
   * say; absent from agents older than this field.
   */
  udp_rcvbuf_errors?: number | null;
  /** The receive buffer the kernel granted the agent's socket (SO_RCVBUF as read back); null until bound. */
  rcvbuf_bytes?: number | null;
  pairs: PairSummary[];
}
