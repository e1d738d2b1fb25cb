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
  /** Each bucket's objects, as R2 lists them. */
  objects: Map<string, { key: string; size: number; etag: string; last_modified: string }[]>;
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

/** Rows written so far and the schema's version: what tells a changing statement from one that was not. */
function fingerprint(db: DatabaseSync): string {
  const { rows } = db.prepare("select total_changes() as rows").get() as { rows: number };
  const { schema_version: schema } = db.prepare("pragma schema_version").get() as { schema_version: number };
  return `${rows}/${schema}`;
}

/** The database as D1's export writes it: each table's schema, then its rows. */
function dumpOf(db: DatabaseSync): string {
  const lines = ["PRAGMA defer_foreign_keys=TRUE;"];
  const tables = db
    .prepare("select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' order by rowid")
    .all() as {
    name: string;
    sql: string;
  }[];
  const literal = (value: unknown) =>
    value === null
      ? "NULL"
      : typeof value === "number" || typeof value === "bigint"
        ? String(value)
        : `'${String(value).replaceAll("'", "''")}'`;
  for (const table of tables) {
    lines.push(`${table.sql};`);
    for (const row of db.prepare(`select * from "${table.name}"`).all() as Record<string, unknown>[])
      lines.push(
        `INSERT INTO "${table.name}" (${Object.keys(row)
          .map((column) => `"${column}"`)
          .join(",")}) VALUES(${Object.values(row).map(literal).join(",")});`,
      );
  }
  const indexes = db.prepare("select sql from sqlite_master where type = 'index' and sql is not null order by rowid").all() as {
    sql: string;
  }[];
  for (const index of indexes) lines.push(`${index.sql};`);
  return lines.join("\n");
}

export async function startCloudflareStandIn(): Promise<StandIn> {
  const state = {
    changes: [] as string[],
    unknown: [] as string[],
    databases: new Map<string, D1>(),
    buckets: new Set<string>(),
    objects: new Map<string, { key: string; size: number; etag: string; last_modified: string }[]>(),
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
        // A statement changed the database when it wrote a row or changed the schema; a
        // `create table if not exists` of a table that is there changes nothing.
        const before = fingerprint(db.sql);
        const results = runSql(db.sql, sql, params);
        if (fingerprint(db.sql) !== before) changed();
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
    // An export (wrangler d1 export --remote): done at once, its SQL served from a link on this server.
    if ((match = new RegExp(`^${account}/d1/database/([^/]+)/export$`).exec(path)) && method === "POST") {
      const db = database(match[1]!);
      if (!db) return send(404, failure(7404, "The database could not be found"));
      const signed = `http://${req.headers.host}/exports/${db.uuid}.sql`;
      return send(
        200,
        ok({
          success: true,
          status: "complete",
          messages: [],
          at_bookmark: "",
          result: { filename: `${db.name}.sql`, signed_url: signed },
        }),
      );
    }
    if ((match = /^\/exports\/([^/]+)\.sql$/.exec(url.pathname)) && method === "GET") {
      const db = database(match[1]!);
      if (!db) return send(404, failure(7404, "The database could not be found"));
      res.writeHead(200, { "Content-Type": "application/sql" });
      return void res.end(dumpOf(db.sql));
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
    if ((match = new RegExp(`^${account}/r2/buckets/([^/]+)/objects$`).exec(path)) && method === "GET") {
      if (!state.buckets.has(match[1]!)) return send(404, failure(10006, "The specified bucket does not exist."));
      return send(200, ok(state.objects.get(match[1]!) ?? [], { result_info: { is_truncated: false } }));
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
      // As Cloudflare does, a Worker that does not exist yet has no secrets: wrangler then makes a draft.
      const script = state.scripts.get(match[1]!);
      if (!script) return send(404, failure(10007, `This Worker does not exist on your account.`));
      const { secrets = {} } = json() as { secrets?: Record<string, { text: string } | null> };
      const before = JSON.stringify([...script.secrets.entries()].sort());
      for (const [name, secret] of Object.entries(secrets)) {
        if (secret === null) script.secrets.delete(name);
        else script.secrets.set(name, String(secret.text));
      }
      if (JSON.stringify([...script.secrets.entries()].sort()) !== before) changed();
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
