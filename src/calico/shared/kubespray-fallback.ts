// The schemas' `x-kubespray-fallback`: where Kubespray takes an option's value from when its own
// variable (x-kubespray-variable) is undefined. One form, a template over Kubespray variables:
//   "{kube_pods_subnet}"        exactly one {name}: that variable's value, of any type
//   "{bin_dir}/calicoctl.sh"    text around {name}s: each variable's value as text
// The fallback applies only when every variable it names is defined; otherwise the schema's
// default (Kubespray's default) does. Pure.

export type FallbackPart = { text: string } | { variable: string };

const PIECE = /\{([A-Za-z_][A-Za-z0-9_]*)\}|([^{}]+)/gy;

/** The template's pieces, in order. Throws on anything but text and {name}s. */
export function parseFallback(template: string): FallbackPart[] {
  const parts: FallbackPart[] = [];
  PIECE.lastIndex = 0;
  for (let m = PIECE.exec(template); m !== null; m = PIECE.exec(template)) {
    if (m[1] !== undefined) parts.push({ variable: m[1] });
    else parts.push({ text: m[2] ?? "" });
    if (PIECE.lastIndex === template.length) break;
  }
  if (PIECE.lastIndex !== template.length || !parts.some((p) => "variable" in p))
    throw new Error(
      `x-kubespray-fallback ${JSON.stringify(template)} is not a template over Kubespray variables, e.g. "{kube_pods_subnet}" or "{bin_dir}/calicoctl.sh"`,
    );
  return parts;
}

/** The variables the template names, in order. */
export function fallbackVariables(template: string): string[] {
  return parseFallback(template).flatMap((p) => ("variable" in p ? [p.variable] : []));
}

/** The variable when the template is exactly one {name} (its value kept as is), else null. */
export function bareFallback(template: string): string | null {
  const parts = parseFallback(template);
  const [only] = parts;
  return parts.length === 1 && only !== undefined && "variable" in only ? only.variable : null;
}
