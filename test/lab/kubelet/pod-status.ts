// The pod status kubelet reports (pure): phase, conditions, one container status, the addresses. Written only when
// something kubelet knows has changed, so the pod's resourceVersion does not move for nothing.

export interface PodView {
  phase: "Pending" | "Running";
  ready: boolean;
  /** The container may not start yet (CreateContainerConfigError) or its init failed (CrashLoopBackOff). */
  waiting: { reason: string; message: string } | null;
  restartCount: number;
  startedAt: string;
  hostIP: string | null;
  podIPs: string[];
  containerName: string;
  image: string;
  containerID: string;
}

interface CurrentStatus {
  phase?: string;
  podIP?: string;
  conditions?: { type: string; status: string }[];
  containerStatuses?: { ready?: boolean; restartCount?: number; state?: Record<string, unknown> }[];
}

export function statusChanged(cur: CurrentStatus | undefined, want: PodView): boolean {
  const c = cur ?? {};
  const ready = c.conditions?.find((x) => x.type === "Ready")?.status === "True";
  const cs = c.containerStatuses?.[0];
  return (
    c.phase !== want.phase ||
    ready !== want.ready ||
    (cs?.ready ?? false) !== want.ready ||
    (cs?.restartCount ?? 0) !== want.restartCount ||
    "waiting" in (cs?.state ?? {}) !== (want.waiting !== null) ||
    (c.podIP ?? null) !== (want.podIPs[0] ?? null)
  );
}

export function podStatus(want: PodView, now: string): Record<string, unknown> {
  const cond = (type: string, ok: boolean): Record<string, unknown> => ({
    type,
    status: ok ? "True" : "False",
    lastProbeTime: null,
    lastTransitionTime: now,
  });
  const running = want.waiting === null && want.phase === "Running";
  const status: Record<string, unknown> = {
    phase: want.phase,
    startTime: want.startedAt,
    conditions: [
      cond("PodScheduled", true),
      cond("Initialized", true),
      cond("ContainersReady", want.ready),
      cond("Ready", want.ready),
    ],
    containerStatuses: [
      {
        name: want.containerName,
        image: want.image,
        imageID: "",
        containerID: want.containerID,
        ready: want.ready,
        started: running,
        restartCount: want.restartCount,
        state: running
          ? { running: { startedAt: want.startedAt } }
          : { waiting: want.waiting ?? { reason: "ContainerCreating", message: "" } },
      },
    ],
  };
  if (want.hostIP !== null)
    Object.assign(status, { hostIP: want.hostIP, hostIPs: [{ ip: want.hostIP }] });
  if (want.podIPs.length > 0) {
    Object.assign(status, { podIP: want.podIPs[0], podIPs: want.podIPs.map((ip) => ({ ip })) });
  }
  return status;
}
