// The stand-in's only connection to the cluster: kube-apiserver over HTTPS with the lab's admin token (node:https,
// one keep-alive agent). LISTs read from the watch cache (resourceVersion=0), so a cycle costs the apiserver little.

import { Agent, request } from "node:https";

export interface ApiOptions {
  url: string;
  token: string;
  ca: string;
  /** Concurrent requests (writes are sent in parallel up to this). */
  maxSockets?: number;
}

export class ApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly code: number,
    readonly body: string,
  ) {
    super(`${method} ${path}: HTTP ${code}: ${body.slice(0, 300)}`);
  }
}

export class Api {
  private readonly agent: Agent;
  private readonly base: URL;
  requests = 0;

  constructor(private readonly opt: ApiOptions) {
    this.base = new URL(opt.url);
    this.agent = new Agent({ keepAlive: true, maxSockets: opt.maxSockets ?? 16, ca: opt.ca });
  }

  call(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<unknown> {
    this.requests++;
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = request(
        {
          method,
          host: this.base.hostname,
          port: this.base.port,
          path,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.opt.token}`,
            accept: "application/json",
            ...(data ? { "content-type": contentType, "content-length": data.length } : {}),
          },
          timeout: 30000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            const code = res.statusCode ?? 0;
            if (code < 200 || code >= 300) reject(new ApiError(method, path, code, text));
            else resolve(text === "" ? null : JSON.parse(text));
          });
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${method} ${path}: timeout`)));
      req.on("error", reject);
      if (data) req.write(data);
      req.end();
    });
  }

  /** LIST; a kind the apiserver does not serve (no Calico CRDs: fresh, etcd) is an empty list. */
  async list<T>(path: string): Promise<T[]> {
    const sep = path.includes("?") ? "&" : "?";
    try {
      const r = (await this.call("GET", `${path}${sep}resourceVersion=0`)) as { items?: T[] };
      return r.items ?? [];
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return [];
      throw e;
    }
  }

  mergePatch(path: string, body: unknown): Promise<unknown> {
    return this.call("PATCH", path, body, "application/merge-patch+json");
  }

  close(): void {
    this.agent.destroy();
  }
}
