// What the benchmarks need: a production build served by wrangler's local workerd, its local D1,
// and a place for the figures (bench/results/<name>.json and the README between the <name> bench
// markers).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { stripVTControlCharacters } from "node:util";

/**
 * `wrangler dev` with `args` on 127.0.0.1:`port`, quiet except for errors. With `onLog`, it logs
 * at info level and each line it prints (a request, a queue batch) is handed to `onLog`.
 */
export function wranglerDev(args: string[], port: number, onLog?: (line: string) => void): ChildProcess {
  const child = spawn("wrangler", ["dev", ...args, "--port", String(port), "--ip", "127.0.0.1", "--log-level", onLog ? "info" : "error"], {
    stdio: ["ignore", onLog ? "pipe" : "ignore", "inherit"],
    env: { ...process.env, CI: "true" },
  });
  if (onLog) createInterface({ input: child.stdout! }).on("line", (line) => onLog(stripVTControlCharacters(line)));
  return child;
}

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

/** `wrangler dev` of a floor Worker; it is up once it answers anything (a floor refuses a bare GET). */
export function serveFloor(floor: Floor) {
  const vars = Object.entries(floor.vars ?? {}).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const child = wranglerDev(["-c", floor.config, "--inspector-port", String(floor.inspector), ...vars, ...(floor.state ? ["--persist-to", floor.state] : [])], floor.port);
  const url = `http://127.0.0.1:${floor.port}`;
  return { url, pid: child.pid, ready: () => waitFor(url, () => true), stop: () => child.kill("SIGTERM") };
}

/**
 * The production build (its D1 persisted in `state`), the trivial Worker and, given one, the job's
 * floor Worker, each on its port, each with its own inspector port; `ready` resolves once all
 * answer, `stop` ends them all.
 */
export function serveWithTrivial(state: string, ports: { app: number; trivial: number; inspectors: number[] }, floor?: Floor) {
  const app = wranglerDev(["-c", "build/server/wrangler.json", "--persist-to", state, "--inspector-port", String(ports.inspectors[0])], ports.app);
  const [trivial, floorWorker] = [{ config: "bench/trivial.wrangler.toml", port: ports.trivial, inspector: ports.inspectors[1]! }, ...(floor ? [floor] : [])].map(serveFloor);
  const appUrl = `http://127.0.0.1:${ports.app}`;
  return {
    appUrl,
    trivialUrl: trivial!.url,
    floorUrl: floorWorker?.url ?? "",
    ready: () => Promise.all([waitFor(`${appUrl}/robots.txt`), trivial!.ready(), floorWorker?.ready()]),
    stop: () => {
      app.kill("SIGTERM");
      trivial!.stop();
      floorWorker?.stop();
    },
  };
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
 * Migrates the local D1 persisted in `state` and stocks `codes` for one variant, straight into the
 * database (stocking through the admin page would need a signed-in admin and its form).
 */
export function stockCodes(state: string, variant: { numericId: number; title: string }, codes: string[]) {
  const now = Date.now();
  const rows = codes.map(
    (code) =>
      `insert into product_codes (variant_id, variant_title, code, is_used, created_at) values ('gid://shopify/ProductVariant/${variant.numericId}', '${variant.title}', '${code}', 0, ${now});`,
  );
  const file = join(state, "stock.sql");
  writeFileSync(file, rows.join("\n"));
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state]);
  wrangler(["d1", "execute", "DB", "--local", "--persist-to", state, "--file", file]);
}

/** The ratio a / b to two decimals, as the goals are written ("0.8×"). */
export const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** Runs a wrangler command quietly and returns what it printed. */
export function wrangler(args: string[]): string {
  return execFileSync("wrangler", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, CI: "true" } });
}

/**
 * The rows of each statement in `sql`, read from the local D1 persisted in `state`. This works
 * while `wrangler dev --persist-to state` serves the same database.
 */
export function queryD1(state: string, sql: string): Record<string, unknown>[][] {
  const answers = JSON.parse(wrangler(["d1", "execute", "DB", "--local", "--persist-to", state, "--json", "--command", sql])) as { results: Record<string, unknown>[] }[];
  return answers.map((a) => a.results);
}

const HANDLED = ["processed", "ignored", "rejected"];

/**
 * Waits until the fulfilment queue has handled all `expected` webhook deliveries whose id starts
 * with `prefix`, and returns how many ended in each outcome. Fails when the queue gave up on a job
 * or at the timeout. Each poll starts a wrangler process (about 2 s of CPU), so the interval is
 * kept long where the bench measures the queue's speed.
 */
export async function waitForDeliveries(state: string, prefix: string, expected: number, { pollMs = 10_000, timeoutMs = 300_000 } = {}): Promise<Record<string, number>> {
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
    if (Date.now() > deadline) throw new Error(`${expected - handled} of ${expected} deliveries still unhandled after ${timeoutMs / 1000} s: ${JSON.stringify(outcomes)}`);
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

export function publish(name: string, results: unknown, markdown: string) {
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(`bench/results/${name}.json`, JSON.stringify(results, null, 2));
  console.log(`\n${markdown}\n`);
  const readme = readFileSync("README.md", "utf8");
  const markers = new RegExp(`(<!-- bench:${name}:start -->\\n)[\\s\\S]*?(<!-- bench:${name}:end -->)`);
  // Without its markers (or with them out of order) the README would silently keep old figures.
  if (!markers.test(readme)) throw new Error(`README.md has no <!-- bench:${name}:start/end --> markers`);
  writeFileSync("README.md", readme.replace(markers, `$1${markdown}\n$2`));
}
