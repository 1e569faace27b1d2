// A container's environment as kubelet resolves it when the container starts (pure): `value`,
// `valueFrom.configMapKeyRef`, `valueFrom.fieldRef` (the downward API fields calico-node's templates use) and
// `envFrom.configMapRef`, with `$(VAR)` references to variables defined earlier in the list expanded and `$$(VAR)`
// kept literally. A missing ConfigMap or key that is not optional is an error: kubelet does not start the container
// (CreateContainerConfigError) and retries, and so does the lab's kubelet.

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

export interface Container {
  name: string;
  image?: string;
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string; optional?: boolean }; prefix?: string }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}

export interface Probe {
  exec?: { command: string[] };
  httpGet?: { path?: string; port: number | string; host?: string };
  periodSeconds?: number;
  initialDelaySeconds?: number;
  failureThreshold?: number;
  successThreshold?: number;
  timeoutSeconds?: number;
}

export interface EnvContext {
  /** ConfigMaps of the pod's namespace: name -> data. */
  configMaps: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Downward API fields: "spec.nodeName", "status.hostIP", "metadata.name", ... */
  fields: Readonly<Record<string, string>>;
}

export interface ResolvedEnv {
  env: Record<string, string>;
  /** Why the container cannot start yet (kubelet's CreateContainerConfigError); empty when it can. */
  errors: string[];
}

/** Kubernetes' $(VAR) expansion: $$ escapes, an unknown reference stays as written. */
export function expand(text: string, defined: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) => {
    if (m === "$$") return "$";
    return name !== undefined && Object.hasOwn(defined, name) ? (defined[name] ?? m) : m;
  });
}

export function resolveEnv(container: Container, ctx: EnvContext): ResolvedEnv {
  const env: Record<string, string> = {};
  const errors: string[] = [];
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef;
    if (!ref) continue;
    const data = ctx.configMaps.get(ref.name);
    if (!data) {
      if (!ref.optional) errors.push(`configmap "${ref.name}" not found`);
      continue;
    }
    for (const [k, v] of Object.entries(data)) env[`${from.prefix ?? ""}${k}`] = v;
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined) {
      env[e.name] = expand(e.value, env);
      continue;
    }
    const src = e.valueFrom;
    if (src?.configMapKeyRef) {
      const ref = src.configMapKeyRef;
      const v = ctx.configMaps.get(ref.name)?.[ref.key];
      if (v !== undefined) env[e.name] = v;
      else if (!ref.optional) {
        errors.push(
          ctx.configMaps.has(ref.name)
            ? `couldn't find key ${ref.key} in ConfigMap kube-system/${ref.name}`
            : `configmap "${ref.name}" not found`,
        );
      }
    } else if (src?.fieldRef) {
      const v = ctx.fields[src.fieldRef.fieldPath];
      if (v !== undefined) env[e.name] = v;
      else errors.push(`unsupported fieldRef ${src.fieldRef.fieldPath} for ${e.name}`);
    } else if (src?.secretKeyRef) {
      if (!src.secretKeyRef.optional)
        errors.push(`secretKeyRef for ${e.name}: the lab has no Secrets`);
    } else {
      env[e.name] = "";
    }
  }
  return { env, errors };
}
