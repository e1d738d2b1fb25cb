// What the benchmarks need: a production build served by wrangler's local workerd, its local D1,
// and a place for the figures (bench/results/<name>.json and docs/performance.md between the
// <name> bench markers).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { stripVTControlCharacters } from "node:util";
import autocannon from "autocannon";

/**
 * `wrangler dev` with `args` on 127.0.0.1:`port`, quiet except for errors. With `onLog`, it logs
 * at info level and each line it prints (a request, a queue batch) is handed to `onLog`.
 *
 * Without wrangler's local trace collector, for every Worker a bench serves alike (decision 135):
 * it streams each request's spans and logs to a Worker of its own that writes them to SQLite, in
 * the same workerd on the same cores, a development tool with no counterpart on Cloudflare, where
 * traces are kept outside the Worker.
 */
export function wranglerDev(args: string[], port: number, onLog?: (line: string) => void): ChildProcess {
  const child = spawn("wrangler", ["dev", ...args, "--port", String(port), "--ip", "127.0.0.1", "--log-level", onLog ? "info" : "error"], {
    stdio: ["ignore", onLog ? "pipe" : "ignore", "inherit"],
    env: { ...process.env, CI: "true", X_LOCAL_OBSERVABILITY: process.env.BENCH_LOCAL_TRACES === "on" ? "true" : "false" },
  });
  if (onLog) createInterface({ input: child.stdout! }).on("line", (line) => onLog(stripVTControlCharacters(line)));
  return child;
}

/** The fields of /proc/<pid>/stat after the command's name (the state is field 0), or none if it ended. */
function statFields(pid: number | string): string[] {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return [];
  }
}

/** The processes `pid` started, itself included, from /proc (Linux). */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    const parent = /^\d+$/.test(entry) ? statFields(entry)[1] : undefined;
    if (parent !== undefined) children.set(Number(parent), [...(children.get(Number(parent)) ?? []), Number(entry)]);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

/**
 * Stops servers with `stop` and waits (at most `timeoutMs`) until every process they ran, those
 * they started included, has exited: a server still closing its D1 files would lock out the next
 * one to open them.
 */
export async function stopAndWait(roots: (number | undefined)[], stop: () => void, timeoutMs = 30_000) {
  const pids = existsSync("/proc") ? roots.flatMap((pid) => (pid === undefined ? [] : processTree(pid))) : [];
  stop();
  const deadline = Date.now() + timeoutMs;
  while (pids.some((pid) => existsSync(`/proc/${pid}`)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
}

/** One load run's figures: req/s, median and 99th-percentile latency, and CPU per answered request. */
export interface LoadRun {
  rps: number;
  p50: number;
  p99: number;
  /** ms of what `cpu` counts (a server's processes, or its Worker's workerd) per answered request. */
  cpu: number;
}

/**
 * One load run (autocannon with `options`) and the CPU `cpu` counted over it. An answer other than
 * a 2xx (a redirect to sign in, an error page) means something else was measured: the run is void.
 */
export async function loadRun(options: autocannon.Options, cpu: () => number): Promise<LoadRun> {
  const before = cpu();
  const result = await autocannon(options);
  if (result.non2xx || result.errors) throw new Error(`${options.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpuMs = Math.round(((cpu() - before) * 1000 * 100) / result.requests.total) / 100;
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, cpu: cpuMs };
}

/**
 * CPU seconds (user + system) that `pid` and every process it started have used so far: wrangler
 * and the workerd serving the Worker with its local simulations. Unlike a latency, the difference
 * around a burst barely moves with the load other processes put on the machine.
 */
export function cpuSeconds(pid: number | undefined, only: (commandLine: string) => boolean = () => true): number {
  // Linux only: elsewhere there is no /proc, and the figure is left empty.
  if (pid === undefined || !existsSync("/proc")) return Number.NaN;
  const ticks = processTree(pid)
    .filter((id) => only(commandLineOf(id)))
    .reduce((sum, id) => {
      const fields = statFields(id);
      return fields.length > 12 ? sum + Number(fields[11]) + Number(fields[12]) : sum;
    }, 0);
  // Linux reports these in clock ticks of 1/100 s.
  return ticks / 100;
}

/** A process's command line, its arguments joined by spaces ("" once it has ended). */
function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

/**
 * Of wrangler's processes, the workerd that runs the Worker itself (its entry on a port of its own
 * choosing), not the one in front of it that takes the connections on the served port.
 */
export const runsTheWorker = (commandLine: string) =>
  commandLine.includes("workerd") && commandLine.includes("--socket-addr=entry=127.0.0.1:0 ");

/**
 * The CPU seconds so far of the workerd that runs the Worker `wrangler dev` (`pid`) serves, its local
 * simulations (D1's Durable Object, the static-asset router) on the same thread: what bounds a
 * rendered page's rate. Wrangler's proxy in front of it, a workerd of its own, is left out.
 */
export const workerCpu = (pid: number | undefined) => () => cpuSeconds(pid, runsTheWorker);

/** A floor Worker of bench/floors: the least a job must cost, on the same runtime as the app. */
export interface Floor {
  /** Its wrangler config. */
  config: string;
  port: number;
  inspector: number;
  /** Settings passed with --var (secrets the floor checks or signs with). */
  vars?: Record<string, string>;
  /** Where its D1 is persisted, if it has one. */
  state?: string;
}

/** Subrequests to the internet one Worker invocation may make on the Workers Free plan. */
export const FREE_SUBREQUESTS = 50;

/** Settings as wrangler's --var arguments. */
const varArgs = (vars: Record<string, string> = {}) => Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);

/** `wrangler dev` of a floor Worker; it is up once it answers anything (a floor refuses a bare GET). */
export function serveFloor(floor: Floor) {
  const child = wranglerDev(
    [
      "-c",
      floor.config,
      "--inspector-port",
      String(floor.inspector),
      ...varArgs(floor.vars),
      ...(floor.state ? ["--persist-to", floor.state] : []),
    ],
    floor.port,
  );
  const url = `http://127.0.0.1:${floor.port}`;
  return {
    url,
    pid: child.pid,
    ready: () => waitFor(url, () => true),
    cpu: () => cpuSeconds(child.pid),
    stop: () => child.kill("SIGTERM"),
  };
}

/** The production build's wrangler configuration, as the build wrote it. */
export interface BuiltConfig {
  main: string;
  ratelimits?: { name: string }[];
  assets?: unknown;
  [setting: string]: unknown;
}

export const builtConfig = () => JSON.parse(readFileSync("build/server/wrangler.json", "utf8")) as BuiltConfig;

/**
 * The production build served through a bench-only entry: `bench/floors/<module>.js` is copied
 * next to the build, and its export `wrapper` wraps the build's default export (called with the
 * export and `args`), from the build's configuration as `configure` changes it. The app's own code
 * is unchanged. Returns the configuration's path, `build/server/wrangler.<name>.json`.
 */
export function wrappedBuild(
  name: string,
  module: string,
  wrapper: string,
  args: unknown[],
  configure: (config: BuiltConfig) => BuiltConfig,
): string {
  const config = builtConfig();
  copyFileSync(`bench/floors/${module}.js`, `build/server/${module}.js`);
  const entry = `${name}-entry.js`;
  const wrapped = [
    `import worker from "./${config.main}";`,
    `import { ${wrapper} } from "./${module}.js";`,
    `export * from "./${config.main}";`,
    `export default ${wrapper}(${["worker", ...args.map((arg) => JSON.stringify(arg))].join(", ")});`,
  ];
  writeFileSync(`build/server/${entry}`, `${wrapped.join("\n")}\n`);
  const path = `build/server/wrangler.${name}.json`;
  writeFileSync(path, JSON.stringify({ ...configure(config), main: entry }));
  return path;
}

/** A batch the fulfilment queue delivered, as wrangler logs it once the handler returned. */
export interface QueueBatch {
  loggedAt: number;
  ms: number;
  acked: number;
  size: number;
}

/**
 * The production build on 127.0.0.1:`port`, its D1 persisted in `state`, with `vars` (--var). With
 * `logBatches`, `batches` fills with the fulfilment queue's batches as wrangler logs them.
 */
export function serveApp(state: string, options: { port: number; inspector: number; vars?: Record<string, string>; logBatches?: boolean }) {
  const batches: QueueBatch[] = [];
  const onLog = (line: string) => {
    const batch = line.match(/QUEUE keyshop-jobs (\d+)\/(\d+) \((\d+)ms\)/);
    if (batch) batches.push({ loggedAt: Date.now(), acked: Number(batch[1]), size: Number(batch[2]), ms: Number(batch[3]) });
  };
  const args = [
    "-c",
    "build/server/wrangler.json",
    "--persist-to",
    state,
    "--inspector-port",
    String(options.inspector),
    ...varArgs(options.vars),
  ];
  const child = wranglerDev(args, options.port, options.logBatches ? onLog : undefined);
  const url = `http://127.0.0.1:${options.port}`;
  /** Whether the server is gone (it crashed, or something ended it): a bench waiting on it would wait in vain. */
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    url,
    pid: child.pid,
    batches,
    gone,
    ready: () => waitFor(`${url}/robots.txt`),
    cpu: () => cpuSeconds(child.pid),
    stop: () => child.kill("SIGTERM"),
  };
}

/**
 * The production build (its D1 persisted in `state`), the trivial Worker and, given one, the job's
 * floor Worker, each on its port, each with its own inspector port; `ready` resolves once all
 * answer, `stop` ends them all.
 */
export function serveWithTrivial(state: string, ports: { app: number; trivial: number; inspectors: number[] }, floor?: Floor) {
  const app = serveApp(state, { port: ports.app, inspector: ports.inspectors[0]! });
  const [trivial, floorWorker] = [
    { config: "bench/trivial.wrangler.toml", port: ports.trivial, inspector: ports.inspectors[1]! },
    ...(floor ? [floor] : []),
  ].map(serveFloor);
  return {
    appUrl: app.url,
    trivialUrl: trivial!.url,
    floorUrl: floorWorker?.url ?? "",
    cpu: { app: app.cpu, trivial: trivial!.cpu, floor: () => floorWorker?.cpu() ?? Number.NaN },
    pids: [app.pid, trivial!.pid, floorWorker?.pid],
    ready: () => Promise.all([app.ready(), trivial!.ready(), floorWorker?.ready()]),
    stop: () => {
      app.stop();
      trivial!.stop();
      floorWorker?.stop();
    },
  };
}

/**
 * Builds the app, fails when something already answers on one of `ports` (it would be measured
 * instead of this build), and answers a fresh directory for the bench's local D1.
 */
export async function buildApp(name: string, ports: number[]): Promise<string> {
  execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  for (const port of ports) await assertFree(port);
  return mkdtempSync(join(tmpdir(), `bench-${name}-`));
}

/**
 * Runs the Worker's scheduled() handler for `cron`: wrangler dev's path for it (the build is not
 * bundled by wrangler, so --test-scheduled's /__scheduled does not exist here).
 */
export async function triggerCron(appUrl: string, cron = "*/5 * * * *") {
  const trigger = await fetch(`${appUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent(cron)}`);
  if (!trigger.ok) throw new Error(`the scheduled trigger answered ${trigger.status}: ${await trigger.text()}`);
}

/** Fails when something already answers on `port`: it would be measured instead of this build. */
export async function assertFree(port: number) {
  const taken = await new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
  if (taken) throw new Error(`port ${port} is in use`);
}

/** A local secret from .dev.vars (the first `npm run dev` or `npm run typegen` writes them). */
export function secret(name: string): string {
  const line = readFileSync(".dev.vars", "utf8").match(new RegExp(`^${name}=(.*)$`, "m"))?.[1];
  if (!line) throw new Error(`${name} is missing from .dev.vars (npm run typegen writes it)`);
  return line.replace(/^"(.*)"$/, "$1");
}

/** The headers of an `orders/paid` webhook carrying `body`, signed as Shopify signs it. */
export function orderPaidHeaders(body: string, deliveryId: string): Record<string, string> {
  return {
    "Content-Type": "application/json",
    "X-Shopify-Topic": "orders/paid",
    "X-Shopify-Webhook-Id": deliveryId,
    "X-Shopify-Hmac-Sha256": createHmac("sha256", secret("SHOPIFY_WEBHOOK_SECRET")).update(body).digest("base64"),
  };
}

/**
 * The statement that stocks `codes` for one variant, straight into the database (stocking through
 * the admin page would need a signed-in admin and its form).
 */
export function codesStatement(variant: { numericId: number; title: string }, codes: string[]): string {
  const now = Date.now();
  const rows = codes.map((code) => `('gid://shopify/ProductVariant/${variant.numericId}', '${variant.title}', '${code}', 0, ${now})`);
  return `insert into product_codes (variant_id, variant_title, code, is_used, created_at) values ${rows.join(", ")};`;
}

/** Migrates the local D1 persisted in `state` and stocks `codes` for one variant. */
export function stockCodes(state: string, variant: { numericId: number; title: string }, codes: string[]) {
  seedD1(state, "stock", [codesStatement(variant, codes)]);
}

/**
 * Migrates the local D1 persisted in `state` and runs `statements` in it (written to `<name>.sql`
 * there): the rows the bench starts from.
 */
export function seedD1(state: string, name: string, statements: string[]) {
  const file = join(state, `${name}.sql`);
  writeFileSync(file, statements.join("\n"));
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state]);
  wrangler(["d1", "execute", "DB", "--local", "--persist-to", state, "--file", file]);
}

/**
 * The licence floor's table in the D1 persisted in `state` (the floor's wrangler `config`), with
 * the one index its read needs (the key), holding `keys`, each free to bind.
 */
export function seedLicenceFloor(state: string, config: string, keys: string[]) {
  const rows = keys.map((key) => `('${key}', '30 Days')`).join(", ");
  const table = "create table licences (key text primary key, hwid text, plan text not null, activated_at integer, expires_at integer);";
  wrangler([
    "d1",
    "execute",
    "DB",
    "--local",
    "--persist-to",
    state,
    "-c",
    config,
    "--command",
    rows ? `${table} insert into licences (key, plan) values ${rows};` : table,
  ]);
}

/** The ratio a / b to two decimals, as the goals are written ("0.8×"). */
/**
 * A signed-in admin for a bench that drives staff pages: the statements that create the account
 * and its session (valid for `days`), and the cookie that presents it.
 */
export function adminSession(now: number, days: number): { statements: string[]; cookie: string } {
  const session = sessionOf("bench-admin", now, days);
  return {
    cookie: session.cookie,
    statements: [
      `insert into users (id, email, password_hash, email_verified_at, created_at) values ('bench-admin', 'admin@bench.test', null, ${now}, ${now});`,
      `insert into profiles (id, username, created_at) values ('bench-admin', 'benchadmin', ${now});`,
      `insert into user_roles (user_id, role) values ('bench-admin', 'admin');`,
      ...session.statements,
    ],
  };
}

/**
 * A session of the existing account `userId`, valid for `days`: the statement that stores it (its
 * token's SHA-256, as sign-in stores it), the cookie that presents it and that hash.
 */
export function sessionOf(userId: string, now: number, days: number): { statements: string[]; cookie: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  const hash = createHash("sha256").update(token).digest("hex");
  const day = 24 * 60 * 60 * 1000;
  return {
    cookie: `__Host-session=${token}`,
    hash,
    statements: [
      `insert into sessions (id, public_id, user_id, created_at, last_seen_at, expires_at) values ('${hash}', '${userId}-session', '${userId}', ${now}, ${now}, ${now + days * day});`,
    ],
  };
}

/** A goal's verdict: what it asks, the figure measured, whether it is met. */
export interface Goal {
  target: string;
  value: string;
  pass: boolean;
}

/** Prints one line per goal, `PASS <goal>: <value> (goal <target>)` or FAIL, `against` saying which comparison it is. */
export function printGoals(goals: Record<string, Goal>, against = "") {
  for (const [goal, { target, value, pass }] of Object.entries(goals))
    console.log(`${pass ? "PASS" : "FAIL"} ${goal}${against ? ` ${against}` : ""}: ${value} (goal ${target})`);
}

/**
 * A shop at scale, as the back office and the members' hub are measured against it: 20,000
 * accounts, 100,000 codes (46,000 sold, each a licence and a subscription) and 50,000 orders of
 * every source (card, crypto, reseller purchases, an admin's manual keys).
 */
export const SHOP_SCALE = {
  accounts: 20_000,
  codes: 100_000,
  card: 38_000,
  crypto: 8_000,
  reseller: 3_000,
  manual: 1_000,
  orders: 50_000,
};
const VARIANTS = [
  { id: "gid://shopify/ProductVariant/7400000001", title: "Vertex Rust - 1 Day" },
  { id: "gid://shopify/ProductVariant/7400000002", title: "Vertex Rust - 7 Days" },
  { id: "gid://shopify/ProductVariant/7400000003", title: "Vertex Rust - 30 Days" },
  { id: "gid://shopify/ProductVariant/7400000004", title: "Vertex Rust - Lifetime" },
];
const DAY = 86_400_000;

/** The seeded shop's names: the n-th buyer's e-mail and account, the n-th code, the n-th searchable payment. */
export const shopScaleNames = {
  email: (n: number) => `buyer${n}@bench.test`,
  userId: (n: number) => `bench-user-${n}`,
  keyOf: (n: number) => `BENCH-KEY-${String(n).padStart(6, "0")}`,
  txidOf: (n: number) => createHash("sha256").update(`bench-tx-${n}`).digest("hex"),
};

/**
 * Everything is generated inside SQLite by recursive CTEs, so 200,000 rows take one statement per
 * table. `admin` are the statements that make the staff account `bench-admin` (manual orders name
 * it as their maker). Card orders 1..38,000 and crypto orders each hold the code with the same number; the
 * first 30,000 card orders belong to accounts, the rest to buyers without one.
 */
export function shopScaleSeed(admin: string[], now: number): string {
  const {
    accounts: ACCOUNTS,
    codes: CODES,
    card: CARD_ORDERS,
    crypto: CRYPTO_ORDERS,
    reseller: RESELLER_PURCHASES,
    manual: MANUAL_ORDERS,
  } = SHOP_SCALE;
  const spread = `(${now} - (n * 37) % (60 * ${DAY}))`;
  const variant = (expr: string) => `case ${expr} % 4 ${VARIANTS.map((v, i) => `when ${i} then '${v.id}'`).join(" ")} end`;
  const variantTitle = (expr: string) => `case ${expr} % 4 ${VARIANTS.map((v, i) => `when ${i} then '${v.title}'`).join(" ")} end`;
  const series = (count: number) => `with recursive s(n) as (select 1 union all select n + 1 from s where n < ${count})`;
  return [
    `${series(ACCOUNTS)} insert into users (id, email, password_hash, email_verified_at, created_at) select 'bench-user-' || n, 'buyer' || n || '@bench.test', null, ${now}, ${now} - n * 60000 from s;`,
    `${series(ACCOUNTS)} insert into profiles (id, username, created_at) select 'bench-user-' || n, 'buyer' || n, ${now} - n * 60000 from s;`,
    ...admin,
    // Codes: 1..46,000 sold (card orders, then crypto orders), the rest available.
    `${series(CODES)} insert into product_codes (id, variant_id, variant_title, code, is_used, used_at, customer_email, order_id, order_line_id, unit_index, created_at)
      select n, ${variant("n")}, ${variantTitle("n")}, 'BENCH-KEY-' || substr('000000' || n, -6),
        n <= ${CARD_ORDERS + CRYPTO_ORDERS}, case when n <= ${CARD_ORDERS + CRYPTO_ORDERS} then ${spread} end,
        case when n <= ${CARD_ORDERS + CRYPTO_ORDERS} then 'buyer' || (n % ${ACCOUNTS + 5000} + 1) || '@bench.test' end,
        case when n <= ${CARD_ORDERS} then cast(9000000000 + n as text) when n <= ${CARD_ORDERS + CRYPTO_ORDERS} then 'CB-' || n end,
        case when n <= ${CARD_ORDERS} then cast(90000000000 + n as text) when n <= ${CARD_ORDERS + CRYPTO_ORDERS} then 'crypto' end,
        case when n <= ${CARD_ORDERS + CRYPTO_ORDERS} then 0 end, ${now} - 90 * ${DAY} from s;`,
    `${series(CARD_ORDERS)} insert into shopify_orders (id, name, email, financial_status, currency, total_price, line_items, received_at, paid_at)
      select cast(9000000000 + n as text), '#' || (100000 + n), 'buyer' || (n % ${ACCOUNTS + 5000} + 1) || '@bench.test', 'paid', 'USD', '19.99',
        json_array(json_object('id', 90000000000 + n, 'variantId', ${variant("n")}, 'quantity', 1, 'title', 'Vertex Rust', 'variantTitle', 'Plan', 'price', '19.99')),
        ${spread}, ${spread} from s;`,
    // Each paid card order's variant, as recording the order writes it (decision 128).
    `${series(CARD_ORDERS)} insert into shopify_order_variants (order_id, variant_id, paid_at) select cast(9000000000 + n as text), ${variant("n")}, ${spread} from s;`,
    `${series(CRYPTO_ORDERS)} insert into crypto_orders (id, order_number, user_id, status, product_title, variant_title, variant_id, customer_email, amount_cents, currency, crypto_type, wallet_address, received_units, confirmations, payments, paid_at, transaction_id, product_code, created_at, updated_at)
      select 'bench-crypto-' || n, 'CB-' || (${CARD_ORDERS} + n), 'bench-user-' || (n % ${ACCOUNTS} + 1), 'complete', 'Vertex Rust', 'Plan', ${variant("n")},
        'buyer' || (n % ${ACCOUNTS} + 1) || '@bench.test', 1999, 'USD', case n % 2 when 0 then 'BTC' else 'LTC' end, 'bc1qbench' || n, 30000, 1,
        '[]', ${spread}, null, 'BENCH-KEY-' || substr('000000' || (${CARD_ORDERS} + n), -6), ${spread}, ${spread} from s;`,
    `${series(RESELLER_PURCHASES)} insert into reseller_ledger (id, user_id, kind, amount_cents, reference, created_at)
      select n, 'bench-user-' || (n % 200 + 1), 'purchase', -2000, '2 monthly', ${spread} from s;`,
    `${series(MANUAL_ORDERS)} insert into manual_orders (id, user_id, email, variant_id, variant_title, reason, created_by, created_at)
      select n, 'bench-user-' || (n % ${ACCOUNTS} + 1), 'buyer' || (n % ${ACCOUNTS} + 1) || '@bench.test', ${variant("n")}, ${variantTitle("n")}, 'Goodwill', 'bench-admin', ${spread} from s;`,
    // One crypto order in 16 carries its on-chain payment: what a search by transaction id finds.
    `update crypto_orders set payments = json_array(json_object('txid', lower(hex(randomblob(32))), 'units', 30000, 'height', 800000)) where cast(substr(id, 14) as integer) % 16 <> 0;`,
    ...[1, 2, 3].map(
      (n) =>
        `update crypto_orders set payments = json_array(json_object('txid', '${shopScaleNames.txidOf(n)}', 'units', 30000, 'height', 800000)) where id = 'bench-crypto-${n * 16}';`,
    ),
    `insert into licences (key, product, plan, owner_email, product_code_id, order_id, created_at)
      select code, 'Vertex Rust', 'monthly', customer_email, id, order_id, used_at from product_codes where is_used = 1;`,
    `insert into user_subscriptions (id, user_id, status, product_title, variant_title, price_currency, price_amount, purchase_date, expiry_date, product_code_id, order_id)
      select 'bench-sub-' || p.id, u.id, 'active', 'Vertex Rust', 'Plan', 'USD', '19.99', p.used_at, p.used_at + 30 * ${DAY}, p.id, p.order_id
      from product_codes p join users u on lower(u.email) = lower(p.customer_email) where p.is_used = 1;`,
    `${series(20_000)} insert into audit_log (actor_user_id, action, subject, detail, created_at) select 'bench-admin', 'licence.reset-hwid', 'BENCH-KEY-' || substr('000000' || n, -6), '{}', ${spread} from s;`,
    "analyze;",
  ].join("\n");
}

/** The ratio a / b to two decimals, as the goals are written ("0.8×"). */
export const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** The middle value (the upper one of an even count). */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Each figure's median over `runs`, figure by figure. */
export function medians<K extends string>(runs: Record<K, number>[], figures: readonly K[]): Record<K, number> {
  return Object.fromEntries(figures.map((figure) => [figure, median(runs.map((run) => run[figure]))])) as Record<K, number>;
}

/**
 * `rounds` runs of each item, taken in turns (the order reversed every other round), so a drift of
 * the machine's state falls on every item alike: each item's runs, in the items' order.
 */
export async function inTurns<T, R>(items: readonly T[], rounds: number, run: (item: T) => Promise<R>): Promise<R[][]> {
  const runs = items.map((): R[] => []);
  const order = items.map((_, i) => i);
  for (let round = 0; round < rounds; round++) {
    for (const i of round % 2 === 0 ? order : [...order].reverse()) runs[i]!.push(await run(items[i]!));
  }
  return runs;
}

/**
 * Two builds measured in the same rounds against the same floor (BENCH_COMPARE): the mean of each
 * round's req/s ratio to the floor's run in that round, the round-by-round difference (this build's
 * minus the other's) with its least and greatest value, and the CPU per request beyond the floor's.
 * The machine's drift falls on both builds alike.
 */
export function comparedInRounds(here: { rps: number; cpu: number }[], there: typeof here, floor: typeof here) {
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const two = (n: number) => Math.round(n * 100) / 100;
  const perRound = (runs: typeof here) => runs.map((run, i) => ({ ratio: run.rps / floor[i]!.rps, cpuBeyond: run.cpu - floor[i]!.cpu }));
  const ours = perRound(here);
  const theirs = perRound(there);
  const differences = ours.map((round, i) => round.ratio - theirs[i]!.ratio);
  return {
    ratio: { here: two(mean(ours.map((r) => r.ratio))), compared: two(mean(theirs.map((r) => r.ratio))) },
    difference: { mean: two(mean(differences)), least: two(Math.min(...differences)), greatest: two(Math.max(...differences)) },
    cpuBeyondFloorMs: { here: two(mean(ours.map((r) => r.cpuBeyond))), compared: two(mean(theirs.map((r) => r.cpuBeyond))) },
  };
}

/** A comparison (comparedInRounds) in words. */
export const comparisonInWords = ({ ratio, difference, cpuBeyondFloorMs }: ReturnType<typeof comparedInRounds>) =>
  `this build ${ratio.here}× and the other ${ratio.compared}× (mean of the rounds; this one's minus the other's per round: mean ${difference.mean}, from ${difference.least} to ${difference.greatest}), CPU per request beyond the floor's ${cpuBeyondFloorMs.here} ms against ${cpuBeyondFloorMs.compared} ms`;

/**
 * Runs `work` with another checkout of the shop as the working directory: its build, its
 * .dev.vars secrets, its wrangler configuration and migrations. Servers started meanwhile keep it.
 * The benches' setup runs one step at a time, so nothing else runs from the wrong directory.
 */
export async function inCheckout<R>(dir: string, work: () => Promise<R>): Promise<R> {
  const back = process.cwd();
  process.chdir(dir);
  try {
    return await work();
  } finally {
    process.chdir(back);
  }
}

/** The nearest-rank `p`th percentile of values sorted ascending. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Runs a wrangler command quietly and returns what it printed. */
export function wrangler(args: string[]): string {
  // A seed file's run answers a result per statement: more than execFileSync's default buffer.
  return execFileSync("wrangler", args, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    env: { ...process.env, CI: "true" },
    maxBuffer: 256 * 1024 * 1024,
  });
}

/**
 * The rows of each statement in `sql`, read from the local D1 persisted in `state`. This works
 * while `wrangler dev --persist-to state` serves the same database.
 */
export function queryD1(state: string, sql: string): Record<string, unknown>[][] {
  const answers = JSON.parse(wrangler(["d1", "execute", "DB", "--local", "--persist-to", state, "--json", "--command", sql])) as {
    results: Record<string, unknown>[];
  }[];
  return answers.map((a) => a.results);
}

const HANDLED = ["processed", "ignored", "rejected"];

/**
 * Waits until the fulfilment queue has handled all `expected` webhook deliveries whose id starts
 * with `prefix`, and returns how many ended in each outcome. Fails when the queue gave up on a job
 * or at the timeout. Each poll starts a wrangler process (about 2 s of CPU), so the interval is
 * kept long where the bench measures the queue's speed.
 */
export async function waitForDeliveries(
  state: string,
  prefix: string,
  expected: number,
  { pollMs = 10_000, timeoutMs = 300_000 } = {},
): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [rows, [dead]] = queryD1(
      state,
      `select outcome, count(*) as n from webhook_deliveries where id like '${prefix}%' group by outcome; select count(*) as n from failed_jobs where dead_at is not null`,
    ) as [{ outcome: string; n: number }[], { n: number }[]];
    const outcomes = Object.fromEntries(rows.map((r) => [r.outcome, r.n]));
    const handled = rows.filter((r) => HANDLED.includes(r.outcome)).reduce((sum, r) => sum + r.n, 0);
    if (handled === expected) return outcomes;
    if (dead!.n > 0) throw new Error(`the queue gave up on ${dead!.n} job(s); deliveries: ${JSON.stringify(outcomes)}`);
    if (Date.now() > deadline)
      throw new Error(
        `${expected - handled} of ${expected} deliveries still unhandled after ${timeoutMs / 1000} s: ${JSON.stringify(outcomes)}`,
      );
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Waits until `url` gives an answer that `up` accepts (by default, a 2xx). */
export async function waitFor(url: string, up = (response: Response) => response.ok) {
  for (let i = 0; i < 120; i++) {
    try {
      if (up(await fetch(url))) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not come up`);
}

/** Where the latest figures are written, each bench between its own markers. */
const FIGURES = "docs/performance.md";

export function publish(name: string, results: unknown, markdown: string) {
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(`bench/results/${name}.json`, JSON.stringify(results, null, 2));
  console.log(`\n${markdown}\n`);
  const figures = readFileSync(FIGURES, "utf8");
  const markers = new RegExp(`(<!-- bench:${name}:start -->\\n)[\\s\\S]*?(<!-- bench:${name}:end -->)`);
  // Without its markers (or with them out of order) the page would silently keep old figures.
  if (!markers.test(figures)) throw new Error(`${FIGURES} has no <!-- bench:${name}:start/end --> markers`);
  writeFileSync(FIGURES, figures.replace(markers, `$1${markdown}\n$2`));
}
