// A stand-in for the parts of Cloudflare's API that the setup script and the wrangler commands it
// runs call: the account and its user, D1 databases (answering SQL with a real SQLite database per
// D1 database, so migrations apply and can be listed), R2 buckets, queues and their consumers, and
// a Worker's secrets. Wrangler is pointed at it with CLOUDFLARE_API_BASE_URL; it listens on
// localhost only. Every request that changes something is logged, so a caller can tell what a run
// changed; a request it does not know is answered 404 in Cloudflare's envelope and logged too.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DatabaseSync } from "node:sqlite";

export const STAND_IN_ACCOUNT = "0123456789abcdef0123456789abcdef";

interface D1 {
  uuid: string;
  name: string;
  createdAt: string;
  sql: DatabaseSync;
}

interface Script {
  secrets: Map<string, string>;
  /** A draft made by `wrangler secret bulk` before the first deploy, or an uploaded Worker. */
  uploaded: boolean;
}

export interface StandIn {
  url: string;
  /** Requests that changed something, as "METHOD /path", in order. */
  changes: string[];
  /** Requests the stand-in did not know. */
  unknown: string[];
  databases: Map<string, D1>;
  buckets: Set<string>;
  queues: Map<string, { id: string; consumers: string[] }>;
  scripts: Map<string, Script>;
  close(): Promise<void>;
}

const ok = (result: unknown, extra: Record<string, unknown> = {}) => ({ success: true, errors: [], messages: [], result, ...extra });
const failure = (code: number, message: string) => ({ success: false, errors: [{ code, message }], messages: [], result: null });

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** What D1's query endpoint answers for `sql`: a reading statement's rows, or a script run (a migration). */
function runSql(db: DatabaseSync, sql: string, params: unknown[] = []) {
  const text = sql.replace(/^\s*--.*$/gm, "").trim();
  const reads = /^(select|pragma|with)\b/i.test(text) && !/;\s*\S/.test(text);
  if (reads) {
    const rows = db.prepare(text).all(...(params as never[]));
    return [{ results: rows, success: true, meta: { changes: 0, duration: 0, rows_read: rows.length, rows_written: 0 } }];
  }
  if (params.length > 0) {
    const run = db.prepare(text).run(...(params as never[]));
    return [
      { results: [], success: true, meta: { changes: Number(run.changes), duration: 0, rows_read: 0, rows_written: Number(run.changes) } },
    ];
  }
  db.exec(text);
  return [{ results: [], success: true, meta: { changes: 0, duration: 0, rows_read: 0, rows_written: 0 } }];
}

export async function startCloudflareStandIn(): Promise<StandIn> {
  const state = {
    changes: [] as string[],
    unknown: [] as string[],
    databases: new Map<string, D1>(),
    buckets: new Set<string>(),
    queues: new Map<string, { id: string; consumers: string[] }>(),
    scripts: new Map<string, Script>(),
  };
  const database = (idOrName: string) => [...state.databases.values()].find((db) => db.uuid === idOrName || db.name === idOrName);

  async function respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const path = url.pathname.replace(/^\/client\/v4/, "");
    const method = req.method ?? "GET";
    const raw = method === "GET" ? Buffer.alloc(0) : await body(req);
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(payload));
    };
    const changed = () => state.changes.push(`${method} ${path}`);
    const json = () => (raw.length > 0 ? (JSON.parse(raw.toString("utf8")) as Record<string, unknown>) : {});
    const account = `/accounts/${STAND_IN_ACCOUNT}`;
    let match: RegExpExecArray | null;

    // The user and their account (wrangler whoami, and any command that needs the account).
    if (method === "GET" && path === "/user/tokens/verify") return send(200, ok({ id: "token", status: "active" }));
    if (method === "GET" && path === "/user") return send(200, ok({ id: "user", email: "owner@shop.test" }));
    if (method === "GET" && path === "/memberships")
      return send(200, ok([{ id: "membership", account: { id: STAND_IN_ACCOUNT, name: "Shop owner" }, status: "accepted" }]));
    if (method === "GET" && path === "/accounts") return send(200, ok([{ id: STAND_IN_ACCOUNT, name: "Shop owner" }]));
    if (method === "GET" && path === `${account}/workers/subdomain`) return send(200, ok({ subdomain: "shop-owner" }));

    // D1.
    if (method === "GET" && path === `${account}/d1/database`) {
      const name = url.searchParams.get("name");
      const list = [...state.databases.values()].filter((db) => !name || db.name === name);
      return send(
        200,
        ok(
          list.map((db) => ({ uuid: db.uuid, name: db.name, created_at: db.createdAt, version: "production" })),
          { result_info: { page: 1, per_page: 1000, count: list.length, total_count: list.length } },
        ),
      );
    }
    if (method === "POST" && path === `${account}/d1/database`) {
      const { name } = json() as { name: string };
      if (database(name)) return send(400, failure(7502, `A database with that name already exists`));
      const db = { uuid: randomUUID(), name, createdAt: new Date().toISOString(), sql: new DatabaseSync(":memory:") };
      state.databases.set(db.uuid, db);
      changed();
      return send(200, ok({ uuid: db.uuid, name: db.name, created_at: db.createdAt }));
    }
    if ((match = new RegExp(`^${account}/d1/database/([^/]+)$`).exec(path)) && method === "GET") {
      const db = database(decodeURIComponent(match[1]!));
      if (!db) return send(404, failure(7404, "The database could not be found"));
      const size = (
        db.sql.prepare("select page_count * page_size as size from pragma_page_count(), pragma_page_size()").get() as { size: number }
      ).size;
      return send(
        200,
        ok({
          uuid: db.uuid,
          name: db.name,
          created_at: db.createdAt,
          version: "production",
          num_tables: 0,
          file_size: size,
          running_in_region: "WEUR",
        }),
      );
    }
    if ((match = new RegExp(`^${account}/d1/database/([^/]+)/(query|raw)$`).exec(path)) && method === "POST") {
      const db = database(match[1]!);
      if (!db) return send(404, failure(7404, "The database could not be found"));
      const { sql, params } = json() as { sql: string; params?: unknown[] };
      try {
        const results = runSql(db.sql, sql, params);
        if (!/^\s*(select|pragma|with)\b/i.test(sql.replace(/^\s*--.*$/gm, "").trim())) changed();
        if (match[2] === "raw") {
          return send(
            200,
            ok(
              results.map((r) => ({
                results: { columns: Object.keys(r.results[0] ?? {}), rows: r.results.map((row) => Object.values(row as object)) },
                success: true,
                meta: r.meta,
              })),
            ),
          );
        }
        return send(200, ok(results));
      } catch (error) {
        return send(400, failure(7500, `${error instanceof Error ? error.message : String(error)}: SQLITE_ERROR`));
      }
    }
    if ((match = new RegExp(`^${account}/d1/database/([^/]+)/time_travel/bookmark$`).exec(path)) && method === "GET") {
      return send(200, ok({ bookmark: `00000001-00000000-00004f72-${"0".repeat(32)}` }));
    }

    // R2.
    if (method === "GET" && path === `${account}/r2/buckets`)
      return send(200, ok({ buckets: [...state.buckets].map((name) => ({ name, creation_date: new Date(0).toISOString() })) }));
    if (method === "POST" && path === `${account}/r2/buckets`) {
      const { name } = json() as { name: string };
      if (state.buckets.has(name)) return send(409, failure(10004, "The bucket you tried to create already exists"));
      state.buckets.add(name);
      changed();
      return send(200, ok({ name }));
    }
    if ((match = new RegExp(`^${account}/r2/buckets/([^/]+)$`).exec(path)) && method === "GET") {
      return state.buckets.has(match[1]!)
        ? send(200, ok({ name: match[1], creation_date: new Date(0).toISOString() }))
        : send(404, failure(10006, "The specified bucket does not exist."));
    }

    // Queues.
    if (method === "GET" && path === `${account}/queues`) {
      const names = url.searchParams.getAll("name");
      const list = [...state.queues.entries()].filter(([name]) => names.length === 0 || names.includes(name));
      return send(
        200,
        ok(
          list.map(([name, queue]) => ({
            queue_id: queue.id,
            queue_name: name,
            created_on: "",
            modified_on: "",
            producers: [],
            consumers: queue.consumers.map((script) => ({ script, type: "worker" })),
          })),
          { result_info: { page: 1, per_page: 100, count: list.length, total_count: list.length } },
        ),
      );
    }
    if (method === "POST" && path === `${account}/queues`) {
      const { queue_name: name } = json() as { queue_name: string };
      if (state.queues.has(name)) return send(409, failure(11009, "A queue with this name already exists"));
      state.queues.set(name, { id: randomUUID().replaceAll("-", ""), consumers: [] });
      changed();
      return send(200, ok({ queue_id: state.queues.get(name)!.id, queue_name: name }));
    }
    if ((match = new RegExp(`^${account}/queues/([^/]+)$`).exec(path)) && method === "GET") {
      const entry = [...state.queues.entries()].find(([name, queue]) => name === match![1] || queue.id === match![1]);
      if (!entry) return send(404, failure(11000, "No such queue"));
      return send(
        200,
        ok({
          queue_id: entry[1].id,
          queue_name: entry[0],
          created_on: "",
          modified_on: "",
          producers: [],
          producers_total_count: 0,
          consumers: entry[1].consumers.map((script) => ({ script, type: "worker", settings: {} })),
          consumers_total_count: entry[1].consumers.length,
        }),
      );
    }

    // Workers: secrets, and the draft Worker `secret bulk` makes before the first deploy.
    if ((match = new RegExp(`^${account}/workers/scripts/([^/]+)/secrets$`).exec(path)) && method === "GET") {
      const script = state.scripts.get(match[1]!);
      if (!script) return send(404, failure(10007, `This Worker does not exist on your account.`));
      return send(200, ok([...script.secrets.keys()].map((name) => ({ name, type: "secret_text" }))));
    }
    if ((match = new RegExp(`^${account}/workers/scripts/([^/]+)/settings$`).exec(path))) {
      const script = state.scripts.get(match[1]!);
      if (!script) return send(404, failure(10007, `This Worker does not exist on your account.`));
      if (method === "GET") return send(200, ok({ bindings: [...script.secrets.keys()].map((name) => ({ type: "secret_text", name })) }));
      if (method === "PATCH") {
        // A multipart form whose "settings" part names the bindings to keep and the secrets to set.
        const text = raw.toString("utf8");
        const settings = JSON.parse(/\{[\s\S]*"bindings"[\s\S]*\}/.exec(text)?.[0] ?? "{}") as {
          bindings?: { type: string; name: string; text?: string }[];
        };
        const next = new Map<string, string>();
        for (const binding of settings.bindings ?? []) {
          if (binding.type === "secret_text") next.set(binding.name, binding.text ?? script.secrets.get(binding.name) ?? "");
          if (binding.type === "inherit" && script.secrets.has(binding.name)) next.set(binding.name, script.secrets.get(binding.name)!);
        }
        const before = JSON.stringify([...script.secrets.entries()].sort());
        script.secrets = next;
        if (JSON.stringify([...next.entries()].sort()) !== before) changed();
        return send(200, ok({ bindings: [...next.keys()].map((name) => ({ type: "secret_text", name })) }));
      }
    }
    if ((match = new RegExp(`^${account}/workers/scripts/([^/]+)/secrets-bulk$`).exec(path)) && method === "PATCH") {
      const script = state.scripts.get(match[1]!) ?? { secrets: new Map<string, string>(), uploaded: false };
      state.scripts.set(match[1]!, script);
      const text = raw.toString("utf8");
      const parsed = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as Record<string, unknown>;
      const secrets = (
        Array.isArray(parsed.secrets) ? parsed.secrets : Object.entries(parsed).map(([name, value]) => ({ name, text: value }))
      ) as { name: string; text: string }[];
      for (const secret of secrets) script.secrets.set(secret.name, String(secret.text));
      changed();
      return send(200, ok({}));
    }
    if ((match = new RegExp(`^${account}/workers/scripts/([^/]+)$`).exec(path)) && method === "PUT") {
      state.scripts.set(match[1]!, { secrets: state.scripts.get(match[1]!)?.secrets ?? new Map(), uploaded: true });
      changed();
      return send(200, ok({ id: match[1], etag: "draft" }));
    }
    if ((match = new RegExp(`^${account}/workers/scripts/([^/]+)/deployments$`).exec(path)) && method === "GET") {
      if (!state.scripts.has(match[1]!)) return send(404, failure(10007, `This Worker does not exist on your account.`));
      return send(200, ok({ deployments: [] }));
    }

    state.unknown.push(`${method} ${url.pathname}${url.search}`);
    return send(404, failure(7003, `The stand-in does not know ${method} ${path}`));
  }

  const server = createServer((req, res) => {
    respond(req, res).catch((error: unknown) => {
      res.writeHead(500, { "Content-Type": "application/json" });
      res.end(JSON.stringify(failure(10000, error instanceof Error ? error.message : String(error))));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4`,
    ...state,
    get changes() {
      return state.changes;
    },
    get unknown() {
      return state.unknown;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
