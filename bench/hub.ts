// The signed-in hub benchmark: builds the app, serves the production build with wrangler's local
// workerd on a D1 seeded as the back office's bench seeds it (20,000 accounts, 100,000 codes,
// 50,000 orders), signs a member in (a buyer with licences, on the support staff so that the orders
// list opens), and measures /dashboard, /dashboard/subscriptions and /dashboard/orders as that
// member next to the hub floor (bench/floors/hub-floor.js: the session read from D1 by its cookie,
// one indexed query, the same bytes answered from memory), served as the app is, behind the
// static-asset router, by the same runtime. Several rounds, taken in turns. Checks the goals (at
// least 0.5× the floor's req/s, p99 at most 2× the floor's, each page) and writes the figures to
// bench/results/hub.json and into docs/performance.md between the hub bench markers.
// With BENCH_COMPARE=<another checkout of the shop>, that checkout's build is served too, on a D1
// of its own seeded the same way, and measured in the same rounds: both builds' ratios against the
// same floor runs, round by round (comparedInRounds), so the machine's drift falls on both alike.
import { execFileSync } from "node:child_process";
import { request } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import {
  adminSession,
  buildApp,
  comparedInRounds,
  comparisonInWords,
  type Goal,
  inCheckout,
  inTurns,
  type LoadRun,
  loadRun,
  medians,
  printGoals,
  publish,
  ratio,
  seedD1,
  serveApp,
  serveFloor,
  SHOP_SCALE,
  sessionOf,
  shopScaleNames,
  shopScaleSeed,
  stopAndWait,
  workerCpu,
  wrangler,
} from "./shared.ts";

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const APP = { port: Number(process.env.BENCH_HUB_APP_PORT ?? 8891), inspector: Number(process.env.BENCH_HUB_APP_INSPECTOR ?? 8892) };
const FLOOR = {
  config: "bench/floors/hub-floor.wrangler.toml",
  port: Number(process.env.BENCH_HUB_FLOOR_PORT ?? 8893),
  inspector: Number(process.env.BENCH_HUB_FLOOR_INSPECTOR ?? 8894),
};
const COMPARE = process.env.BENCH_COMPARE;
const COMPARED = {
  port: Number(process.env.BENCH_HUB_COMPARED_PORT ?? 8895),
  inspector: Number(process.env.BENCH_HUB_COMPARED_INSPECTOR ?? 8896),
};
const GOALS = { throughput: 0.5, p99: 2 };
// The member measured: buyer 2 of the seeded shop holds two licences; on the support staff, so the
// staff's orders list (every order of every source) opens for them too.
const MEMBER = 2;
const ROLE = "support";
// Each page, what it must show (a fast error page must not pass for a fast answer), and the name of
// its captured copy for the floor.
const PAGES = [
  { path: "/dashboard", expect: "Hub", file: "dashboard" },
  { path: "/dashboard/subscriptions", expect: shopScaleNames.keyOf(1), file: "subscriptions" },
  { path: "/dashboard/orders", expect: "Orders", file: "orders" },
] as const;
// Per connection, not per answer: the floor's runtime sets them itself.
const HOP_HEADERS = ["connection", "keep-alive", "transfer-encoding", "content-length", "date"];

/** `cpu`: of the workerd that runs the Worker (`workerCpu`), ms per answered request. */
interface Row extends LoadRun {
  name: string;
  path: string;
  worker: "app" | "floor" | "compared";
}

/** The floor's own D1: sessions and accounts as the app keeps them, and the same number of orders, indexed by member. */
function floorSeed(sessionHash: string, userId: string, now: number): string {
  const series = (count: number) => `with recursive s(n) as (select 1 union all select n + 1 from s where n < ${count})`;
  return [
    "create table users (id text primary key, email text not null, banned_at integer);",
    "create table sessions (id text primary key, user_id text not null references users (id), expires_at integer not null, last_seen_at integer not null);",
    "create table orders (id integer primary key, user_id text not null, created_at integer not null, total_cents integer not null);",
    "create index orders_member on orders (user_id, created_at);",
    `${series(SHOP_SCALE.accounts)} insert into users (id, email) select 'bench-user-' || n, 'buyer' || n || '@bench.test' from s;`,
    `insert into sessions (id, user_id, expires_at, last_seen_at) values ('${sessionHash}', '${userId}', ${now + 30 * 86_400_000}, ${now});`,
    `${series(SHOP_SCALE.orders)} insert into orders (id, user_id, created_at, total_cents) select n, 'bench-user-' || (n % ${SHOP_SCALE.accounts} + 1), ${now} - n * 37, 1999 from s;`,
    "analyze;",
  ].join("\n");
}

/** A page's bytes and headers as autocannon gets them (no Accept-Encoding), for the member. */
function capture(url: string, cookie: string) {
  return new Promise<{ status: number; headers: Record<string, string>; body: Buffer }>((resolve, reject) => {
    request(url, { headers: { Cookie: cookie } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

/** A page as a build answers the member, refused unless it is the page itself (200, showing what it must). */
async function capturedPage(url: string, page: (typeof PAGES)[number], cookie: string) {
  const answer = await capture(url + page.path, cookie);
  if (answer.status !== 200 || !answer.body.toString("utf8").replaceAll("<!-- -->", "").includes(page.expect))
    throw new Error(`${url}${page.path} answered ${answer.status} without "${page.expect}"`);
  return answer;
}

/** Each page as the app answers the member, checked, and written for the floor to answer from memory. */
async function capturePages(url: string, cookie: string) {
  const headers: Record<string, Record<string, string>> = {};
  const bytes: Record<string, number> = {};
  for (const page of PAGES) {
    const answer = await capturedPage(url, page, cookie);
    writeFileSync(`bench/floors/hub-floor.${page.file}.html`, answer.body);
    headers[page.path] = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_HEADERS.includes(name)));
    bytes[page.path] = answer.body.byteLength;
  }
  writeFileSync("bench/floors/hub-floor.json", JSON.stringify(headers));
  return bytes;
}

const measure = (url: string, cookie: string, cpu: () => number) =>
  loadRun({ url, connections: CONNECTIONS, duration: DURATION, headers: { Cookie: cookie } }, cpu);

function goalsOf(rows: Row[]): Record<string, Goal> {
  const goals: Record<string, Goal> = {};
  for (const { path } of PAGES) {
    const app = rows.find((r) => r.path === path && r.worker === "app")!;
    const floor = rows.find((r) => r.path === path && r.worker === "floor")!;
    const throughput = ratio(app.rps, floor.rps);
    const p99 = ratio(app.p99, floor.p99);
    goals[`${path} req/s`] = {
      target: `≥ ${GOALS.throughput}× the hub floor's`,
      value: `${throughput}× (${app.rps} against ${floor.rps})`,
      pass: throughput >= GOALS.throughput,
    };
    goals[`${path} p99`] = {
      target: `≤ ${GOALS.p99}× the hub floor's`,
      value: `${p99}× (${app.p99} ms against ${floor.p99} ms)`,
      pass: p99 <= GOALS.p99,
    };
  }
  return goals;
}

function table(
  rows: Row[],
  goals: Record<string, Goal>,
  date: string,
  machine: string,
  bytes: Record<string, number>,
  comparison?: ({ path: string } & ReturnType<typeof comparedInRounds>)[],
) {
  const floorOf = (r: Row) => rows.find((f) => f.path === r.path && f.worker === "floor")!;
  return [
    "| page | Worker | req/s | p50 ms | p99 ms | req/s vs floor | p99 vs floor | Worker's workerd CPU ms per request | CPU vs floor |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.path} | ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${ratio(r.rps, floorOf(r).rps)}× | ${ratio(r.p99, floorOf(r).p99)}× | ${r.cpu} | ${ratio(r.cpu, floorOf(r).cpu)}× |`,
    ),
    "",
    `Goals: ${Object.entries(goals)
      .map(([goal, { target, value, pass }]) => `${goal} ${target}: ${pass ? "pass" : "**fail**"} (${value})`)
      .join("; ")}.`,
    "",
    ...(comparison
      ? [
          `Measured in the same rounds, the build of another checkout (BENCH_COMPARE), against the hub floor: ${comparison
            .map((row) => `${row.path}, ${comparisonInWords(row)}`)
            .join("; ")}.`,
          "",
        ]
      : []),
    `Measured ${date} as a signed-in member (a buyer with ${ROLE} staff's role) with ${CONNECTIONS} connections × ${DURATION} s per run (autocannon), ${ROUNDS} runs per row taken in turns, each row the median; ${SHOP_SCALE.accounts.toLocaleString("en")} accounts, ${SHOP_SCALE.codes.toLocaleString("en")} codes and ${SHOP_SCALE.orders.toLocaleString("en")} orders in the local D1; pages of ${PAGES.map((p) => `${Math.round(bytes[p.path]! / 1024)} KB`).join(", ")}; ${machine}.`,
  ].join("\n");
}

/** The other checkout's build (BENCH_COMPARE), built in its own directory and served on its own D1 holding `seed`. */
function serveCompared(dir: string, seed: string[]) {
  return inCheckout(dir, async () => {
    execFileSync("npm", ["run", "build"], { stdio: "inherit" });
    const state = mkdtempSync(join(tmpdir(), "bench-hub-compared-"));
    seedD1(state, "seed", seed);
    const compared = serveApp(state, COMPARED);
    await compared.ready();
    return { ...compared, state };
  });
}

async function main() {
  const state = await buildApp("hub", [
    APP.port,
    APP.inspector,
    FLOOR.port,
    FLOOR.inspector,
    ...(COMPARE ? [COMPARED.port, COMPARED.inspector] : []),
  ]);
  const now = Date.now();
  const admin = adminSession(now, 30);
  const userId = shopScaleNames.userId(MEMBER);
  const member = sessionOf(userId, now, 30);
  const seed = [
    shopScaleSeed(
      [...admin.statements, `insert into user_roles (user_id, role) values ('${userId}', '${ROLE}');`, ...member.statements],
      now,
    ),
  ];
  seedD1(state, "seed", seed);
  // The floor's D1 lives apart: two processes opening files in one state directory lock each other out.
  const floorState = join(state, "floor");
  const floorSql = join(state, "floor.sql");
  writeFileSync(floorSql, floorSeed(member.hash, userId, now));
  wrangler(["d1", "execute", "DB", "--local", "-c", FLOOR.config, "--persist-to", floorState, "--file", floorSql]);

  const app = serveApp(state, APP);
  let floor: ReturnType<typeof serveFloor> | undefined;
  let compared: Awaited<ReturnType<typeof serveCompared>> | undefined;
  try {
    await app.ready();
    // Warm every page once so no run pays for first-request compilation.
    for (const page of PAGES) await capture(app.url + page.path, member.cookie);
    const bytes = await capturePages(app.url, member.cookie);
    floor = serveFloor({ ...FLOOR, state: floorState });
    await floor.ready();
    for (const page of PAGES) {
      const answer = await capture(floor.url + page.path, member.cookie);
      if (answer.status !== 200 || answer.body.byteLength !== bytes[page.path])
        throw new Error(`the floor answered ${page.path} with ${answer.status}`);
    }
    console.log(`hub floor answers the pages' bytes: ${JSON.stringify(bytes)}`);
    if (COMPARE) {
      compared = await serveCompared(COMPARE, seed);
      for (const page of PAGES) {
        await capturedPage(compared.url, page, member.cookie);
      }
    }

    const workers = PAGES.flatMap((page) => [
      { name: "hub floor", worker: "floor" as const, path: page.path, url: floor!.url, cpu: workerCpu(floor!.pid) },
      { name: "the app", worker: "app" as const, path: page.path, url: app.url, cpu: workerCpu(app.pid) },
      ...(compared
        ? [{ name: "the compared build", worker: "compared" as const, path: page.path, url: compared.url, cpu: workerCpu(compared.pid) }]
        : []),
    ]);
    const runs = await inTurns(workers, ROUNDS, async (w) => {
      const run = await measure(w.url + w.path, member.cookie, w.cpu);
      console.log(w.path, w.worker, run);
      return run;
    });
    const rows: Row[] = workers.map((w, i) => ({
      name: `${w.name} (median of ${ROUNDS} runs)`,
      worker: w.worker,
      path: w.path,
      ...medians(runs[i]!, ["rps", "p50", "p99", "cpu"]),
    }));
    const runsOf = (path: string, worker: Row["worker"]) => runs[workers.findIndex((w) => w.path === path && w.worker === worker)]!;
    const comparison = compared
      ? PAGES.map(({ path }) => ({ path, ...comparedInRounds(runsOf(path, "app"), runsOf(path, "compared"), runsOf(path, "floor")) }))
      : undefined;
    for (const row of comparison ?? [])
      console.log(`A/B ${row.path} against the hub floor (the other: ${COMPARE}): ${comparisonInWords(row)}`);
    const goals = goalsOf(rows);
    printGoals(goals, "against the hub floor");
    const date = new Date().toISOString().slice(0, 10);
    const machine = `${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd)`;
    publish(
      "hub",
      { date, machine, rows, goals, bytes, ...(comparison ? { comparedWith: COMPARE, comparison } : {}) },
      table(rows, goals, date, machine, bytes, comparison),
    );
  } finally {
    await stopAndWait([app.pid, floor?.pid, compared?.pid], () => {
      app.stop();
      floor?.stop();
      compared?.stop();
    });
    rmSync(state, { recursive: true, force: true });
    if (compared) rmSync(compared.state, { recursive: true, force: true });
  }
}

await main();
