// `npm run drill:restore`: the backup and restore, rehearsed end to end on this machine, as CI runs
// it. In a scratch folder (never the dev database):
//   1. the dev server seeds a fresh local database (its demo accounts, stock and files), a member
//      buys a key through a signed Shopify order webhook, and the key is bound to a PC;
//   2. `npm run backup -- --local` backs it up;
//   3. a mistaken bulk action deletes every licence (their PCs and checks go with them);
//   4. `npm run restore` reads the backup into a fresh state folder;
//   5. every table of the restored database is compared row for row with the seeded one, and the
//      production build, served on the restored state, answers as before: the key is VALID on its
//      PC and the member's data download lists the order with its key.
// Localhost only. Needs the production build (`npm run build`); makes it when it is missing.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";

const MEMBER = { email: "member@example.com", password: "member-demo-1" };
// The demo catalogue's first plan (Vertex Rust, 1 Week) and the PC the key is bound to.
const VARIANT = { id: 4_710_000_000_001, title: "1 Week", price: "29.99" };
const PC = "DRILL-PC-0123456789ABCDEF";
const BROKEN_TABLE = "licences";

const drill = mkdtempSync(join(tmpdir(), "keyshop-restore-drill-"));
const seeded = join(drill, "seeded");
const restored = join(drill, "restored");
const running: ChildProcess[] = [];
let passed = false;

/** Stops the drill; the servers it started are stopped on the way out. */
function fail(message: string): never {
  throw new Error(message);
}

function step(title: string) {
  console.log(`\n▸ ${title}`);
}

/** A node script of this project or a binary of node_modules/.bin, quiet unless it fails. */
function run(command: string, args: string[], env: Record<string, string> = {}): string {
  try {
    return execFileSync(command, args, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", ...env },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 300_000,
    });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return fail(`${command} ${args.join(" ")} failed:\n${failed.stdout ?? ""}${failed.stderr ?? ""}${failed.message}`);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** Starts a server and waits until `url` answers (each start gets four minutes: a first dev start compiles). */
async function serve(command: string, args: string[], url: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, CI: "true", ...env } });
  running.push(child);
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => (errors = `${errors}${chunk.toString()}`.slice(-4000)));
  for (let i = 0; i < 480; i++) {
    if (child.exitCode !== null) fail(`${command} ${args.join(" ")} stopped:\n${errors}`);
    try {
      if ((await fetch(url)).ok) return child;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return fail(`${url} did not come up:\n${errors}`);
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

function devVar(name: string): string {
  const line = readFileSync(".dev.vars", "utf8").match(new RegExp(`^${name}=(.*)$`, "m"))?.[1];
  return line?.replace(/^"(.*)"$/, "$1") ?? fail(`${name} is missing from .dev.vars (npm install writes it)`);
}

async function signIn(origin: string): Promise<string> {
  const response = await fetch(`${origin}/auth`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: origin, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ intent: "login", emailOrUsername: MEMBER.email, password: MEMBER.password }),
  });
  const cookie = /(__Host-session=[^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1];
  return cookie ?? fail(`The member could not sign in at ${origin} (${response.status})`);
}

/** The parts of the member's data download the drill reads: their orders, sold keys and licences. */
interface MemberData {
  tables: {
    shopify_orders: { id: unknown }[];
    product_codes: { code: string }[];
    licences: { key: string; hwid: string | null }[];
  };
}

async function memberData(origin: string, cookie: string): Promise<MemberData> {
  const response = await fetch(`${origin}/dashboard/security/data.json`, { headers: { Cookie: cookie } });
  if (!response.ok) fail(`The member's data download answered ${response.status}`);
  return (await response.json()) as MemberData;
}

async function validate(origin: string, key: string): Promise<string> {
  const response = await fetch(`${origin}/api/v1/licences/validate`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ key, hwid: PC, nonce: randomBytes(16).toString("hex") }),
  });
  return ((await response.json()) as { code?: string }).code ?? `HTTP ${response.status}`;
}

/** The local D1 file in a state folder. */
function databaseFile(state: string): string {
  const folder = join(state, "v3", "d1", "miniflare-D1DatabaseObject");
  const file = readdirSync(folder).find((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite");
  return join(folder, file ?? fail(`${folder} holds no database`));
}

/** Every table's rows, in a stable order (SQLite's and Cloudflare's own tables left out). */
function tablesOf(state: string): Record<string, unknown[]> {
  const db = new DatabaseSync(databaseFile(state), { readOnly: true });
  try {
    const names = db
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' order by name")
      .all() as { name: string }[];
    return Object.fromEntries(names.map(({ name }) => [name, db.prepare(`select * from "${name}" order by rowid`).all()]));
  } finally {
    db.close();
  }
}

try {
  step("Seeding a local database with the dev server");
  run("node", ["scripts/prepare-local.ts"], { LOCAL_STATE_DIR: seeded });
  const devPort = await freePort();
  const dev = `http://127.0.0.1:${devPort}`;
  const devServer = await serve("react-router", ["dev", "--port", String(devPort), "--host", "127.0.0.1", "--strictPort"], `${dev}/`, {
    LOCAL_STATE_DIR: seeded,
  });
  const orderId = 9_100_000_000 + Math.floor(Math.random() * 1_000_000);
  const order = JSON.stringify({
    id: orderId,
    name: `#D${orderId % 100_000}`,
    email: MEMBER.email,
    currency: "USD",
    total_price: VARIANT.price,
    financial_status: "paid",
    line_items: [
      { id: orderId * 10, variant_id: VARIANT.id, quantity: 1, title: "Vertex Rust", variant_title: VARIANT.title, price: VARIANT.price },
    ],
  });
  const webhook = await fetch(`${dev}/webhooks/shopify`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": "orders/paid",
      "X-Shopify-Webhook-Id": `drill-${orderId}`,
      "X-Shopify-Hmac-Sha256": createHmac("sha256", devVar("SHOPIFY_WEBHOOK_SECRET")).update(order).digest("base64"),
    },
    body: order,
  });
  if (!webhook.ok) fail(`The order webhook answered ${webhook.status}`);
  const cookie = await signIn(dev);
  let key: string | undefined;
  for (let i = 0; i < 60 && !key; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    key = (await memberData(dev, cookie)).tables.product_codes[0]?.code;
  }
  if (!key) fail("The member's key did not arrive within a minute");
  const bound = await validate(dev, key);
  if (bound !== "VALID") fail(`The new key answered ${bound} on its first check`);
  console.log(`  the member bought ${key} and bound it to ${PC}`);
  await stop(devServer);
  const before = tablesOf(seeded);

  step("npm run backup -- --local");
  run("node", ["scripts/backup.ts", "--local", "--persist-to", seeded, "--out", join(drill, "backups")]);
  const backup = join(drill, "backups", readdirSync(join(drill, "backups"))[0]!);
  console.log(`  ${backup}`);

  step(`Breaking it: every row of ${BROKEN_TABLE} deleted`);
  run("wrangler", ["d1", "execute", "DB", "--local", "--persist-to", seeded, "--command", `delete from ${BROKEN_TABLE}`]);
  const broken = tablesOf(seeded)[BROKEN_TABLE]!;
  if (broken.length !== 0) fail(`${BROKEN_TABLE} still has ${broken.length} rows`);
  console.log(`  ${before[BROKEN_TABLE]!.length} licence(s) gone`);

  step("npm run restore");
  run("node", ["scripts/restore.ts", backup, "--persist-to", restored]);
  const after = tablesOf(restored);
  const differing = Object.keys({ ...before, ...after }).filter(
    (table) => JSON.stringify(before[table] ?? null) !== JSON.stringify(after[table] ?? null),
  );
  if (differing.length > 0) fail(`The restored database differs from the backed-up one in: ${differing.join(", ")}`);
  const rows = Object.values(after).reduce((sum, table) => sum + table.length, 0);
  console.log(`  ${Object.keys(after).length} tables, ${rows} rows, each the same as before the break`);

  step("The production build on the restored database");
  if (!existsSync("build/server/wrangler.json")) run("npm", ["run", "build"]);
  const [port, inspector] = [await freePort(), await freePort()];
  const shop = `http://127.0.0.1:${port}`;
  const args = ["dev", "-c", "build/server/wrangler.json", "--persist-to", restored, "--port", String(port), "--ip", "127.0.0.1"];
  const production = await serve(
    "wrangler",
    [...args, "--inspector-port", String(inspector), "--log-level", "error"],
    `${shop}/robots.txt`,
  );
  const answer = await validate(shop, key);
  if (answer !== "VALID") fail(`The restored shop answered ${answer} for the member's key on its PC`);
  const { tables } = await memberData(shop, await signIn(shop));
  if (!tables.shopify_orders.some((row) => String(row.id) === String(orderId)))
    fail(`The member's data download no longer lists their order ${orderId}`);
  if (!tables.licences.some((row) => row.key === key && row.hwid === PC))
    fail(`The member's data download no longer lists ${key} bound to ${PC}`);
  console.log(`  ${key} is VALID on its PC, and the member's order is listed with it`);
  await stop(production);
  passed = true;
  console.log("\n✓ The restore drill passed.");
} catch (error) {
  console.error(`\n✗ ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  for (const child of running) await stop(child);
  if (passed) rmSync(drill, { recursive: true, force: true });
  else console.error(`The drill's folder is kept for a look: ${resolve(drill)}`);
}
