// Licence API benchmark: builds the app, serves the production build with wrangler's local
// workerd, sells keys the way the shop does (order webhooks, keys handed out by the fulfilment
// queue) and activates them, then measures, in one run,
// POST /api/v1/licences/validate for an even mix of valid, mismatched and unknown keys next to a
// trivial Worker and the licence floor (bench/floors/licence-floor.js: two rate-limit calls, one
// indexed D1 read of the same keys, a bind when free, an Ed25519 signature), served bare and behind
// the static-asset router as the app is, all by the same runtime. Then app and floor again with the
// local rate-limit simulation a no-op in both, behind the router and without it. Checks the goals
// (at least 0.8× the floor's answered checks a second, p99 at most 1.3× the floor's) and writes the
// figures to bench/results/licences.json and into docs/performance.md between the licences bench markers.
// With BENCH_COMPARE=<another checkout of the shop>, that checkout's build is served too, with its
// own D1 and keys sold and activated the same way, and measured in the same rounds as this one:
// both builds' ratios against the same floor runs, round by round, so the machine's drift falls
// on both alike.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import {
  assertFree,
  comparedInRounds,
  comparisonInWords,
  inCheckout,
  builtConfig,
  inTurns,
  medians,
  orderPaidHeaders,
  printGoals,
  publish,
  ratio,
  secret,
  seedLicenceFloor,
  serveApp,
  serveFloor,
  serveWithTrivial,
  stockCodes,
  stopAndWait,
  waitForDeliveries,
  wrappedBuild,
} from "./shared.ts";

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
const VALIDATE = "/api/v1/licences/validate";
const APP_PORT = 8791;
const TRIVIAL_PORT = 8792;
const FLOOR_PORT = 8799;
const INSPECTOR_PORTS = [8793, 8794, 8800];
const FLOOR_CONFIG = "bench/floors/licence-floor.wrangler.toml";
// The floor behind the static-asset router, as the app is served, with a D1 of its own.
const ROUTED_FLOOR = { config: "bench/floors/licence-floor.assets.wrangler.toml", port: 8801, inspector: 8802 };
// The second pass: app and floor with their rate-limiting bindings swapped for a no-op
// (bench/floors/unlimited.js), each from a configuration without `ratelimits`, on the same D1.
const UNLIMITED_FLOOR_CONFIG = "bench/floors/licence-floor.unlimited.wrangler.toml";
// The same floor behind the static-asset router, as the app is served (its own `run_worker_first`).
const ROUTED_UNLIMITED_FLOOR_CONFIG = "bench/floors/licence-floor.unlimited.assets.wrangler.toml";
const UNLIMITED_PORTS = { app: 9101, floor: 9103, inspectors: [9102, 9104] };
// The per-key limit is 60 calls in a wall-clock minute. Each known key gets one activation, then
// two of every 3 × KEYS measured calls: 600 keys stay under the limit even through a whole minute
// at 850 calls a second, more than the trivial Worker serves here.
const KEYS = 600;
const UNITS_PER_ORDER = 50;
const VARIANT = 7_100_000_001;
const CODES = ["VALID", "HWID_MISMATCH", "NOT_FOUND"] as const;
const GOALS = { throughput: 0.8, p99: 1.3 };
// One run of 10 s moves by more than the goals' margins from one run to the next (0.72× to 0.82× for
// the same build), and so did the median of three (0.79× to 0.92× with the local costs out): every
// Worker is run this many times, in turns, and each row is the median.
const ROUNDS = 5;
const SALE_DELIVERY = "bench-order-";
/** Another checkout whose build is measured beside this one (A/B), and where it is served. */
const COMPARE = process.env.BENCH_COMPARE;
const COMPARE_PORTS = { app: 8795, inspector: 8796 };

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** CPU of the Worker's processes (wrangler, workerd and its local simulations) per answered call, ms. */
  cpu: number;
}

interface Tally {
  statuses: Record<string, number>;
  codes: Record<string, number>;
}

const keyOf = (k: number) => `BENCH-LICENCE-${String(k).padStart(5, "0")}`;
const hwidOf = (k: number) => `BENCH-PC-${String(k).padStart(8, "0")}`;
const OTHER_PC = "BENCH-PC-SOMEONE-ELSE";

// One counter for every call the bench makes, for the nonces. Each key's program checks from its
// own PC's address, as a shop's buyers do: three calls a turn of the keys come from it (at the
// trivial Worker's pace about 140 a minute, under the per-address limit of 300), and the
// shared-key watch hears of each key's one address once, not of a new one at every call.
let calls = 0;
const addressOf = (k: number) => `10.0.${k >> 8}.${k & 255}`;
const nonce = (i: number) => `bench-nonce-${String(i).padStart(10, "0")}`;

/**
 * The i-th measured call (`n` its nonce's number): a third each of valid, mismatched and unknown
 * keys, keys in rotation, all three from the address of the PC whose turn it is.
 */
function validateCall(i: number, n: number) {
  const slot = Math.floor(i / 3);
  const k = slot % KEYS;
  const body = [
    { key: keyOf(k), hwid: hwidOf(k) },
    { key: keyOf((k + KEYS / 2) % KEYS), hwid: OTHER_PC },
    { key: `BENCH-UNKNOWN-${slot}`, hwid: hwidOf(k) },
  ][i % 3]!;
  return { body: JSON.stringify({ ...body, nonce: nonce(n) }), address: addressOf(k) };
}

/**
 * The keys are stocked straight into the local D1, then sold by signed orders/paid webhooks, so
 * every licence is made by the shop's own sale path, as a real order makes it.
 */
async function sellKeys(url: string) {
  for (let order = 0; order < KEYS / UNITS_PER_ORDER; order++) {
    const id = 7_200_000_000 + order;
    const body = JSON.stringify({
      id,
      name: `#B${order}`,
      email: `bench-buyer-${order}@example.test`,
      currency: "USD",
      total_price: "89.99",
      financial_status: "paid",
      line_items: [
        { id: id * 10, variant_id: VARIANT, quantity: UNITS_PER_ORDER, title: "Vertex Rust", variant_title: "30 Days", price: "89.99" },
      ],
    });
    const response = await fetch(`${url}/webhooks/shopify`, {
      method: "POST",
      headers: orderPaidHeaders(body, `${SALE_DELIVERY}${id}`),
      body,
    });
    if (!response.ok) throw new Error(`order webhook ${id}: ${response.status} ${await response.text()}`);
  }
}

/** The floor's table of the same keys, free to bind. */
const seedFloor = (state: string, config: string) =>
  seedLicenceFloor(
    state,
    config,
    Array.from({ length: KEYS }, (_, k) => keyOf(k)),
  );

/** The first call of each key binds it to its PC, as a loader's first check does. */
async function activateKeys(url: string) {
  let next = 0;
  const worker = async () => {
    for (let k = next++; k < KEYS; k = next++) {
      const i = calls++;
      const response = await fetch(url + VALIDATE, {
        method: "POST",
        headers: { "Content-Type": "application/json", "CF-Connecting-IP": addressOf(k) },
        body: JSON.stringify({ key: keyOf(k), hwid: hwidOf(k), nonce: nonce(i) }),
      });
      const answer = (await response.json()) as { code?: string };
      if (answer.code !== "VALID") throw new Error(`activating ${keyOf(k)}: ${response.status} ${JSON.stringify(answer)}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

/**
 * The production build as served, but entered through a module that hands it no-op rate limiters
 * (bench/floors/unlimited.js, copied next to the build), from a configuration without `ratelimits`;
 * behind the static-asset router as deployed, or with `router` false from one without `assets`.
 */
function writeUnlimitedApp(router: boolean): string {
  const names = (builtConfig().ratelimits ?? []).map((binding) => binding.name);
  return wrappedBuild(router ? "unlimited" : "unlimited-bare", "unlimited", "unlimited", [names], ({ assets, ...config }) => ({
    ...config,
    ...(router ? { assets } : {}),
    ratelimits: [],
  }));
}

/**
 * The second pass: floor and app with no-op rate limiters, on the same D1 and keys as the first,
 * first both behind the static-asset router (the app as deployed), then both without it. Each
 * phase's pair is measured in turns; the app is compared only with the floor of its own phase.
 */
async function measureUnlimited(state: string) {
  const phase = async (floorConfig: string, appConfig: string) => {
    // One after the other: two processes opening one SQLite file at once lock each other out.
    const floor = serveFloor({
      config: floorConfig,
      port: UNLIMITED_PORTS.floor,
      inspector: UNLIMITED_PORTS.inspectors[1]!,
      vars: { SIGNING_KEY: secret("LICENCE_SIGNING_KEY") },
      state,
    });
    await floor.ready();
    const app = serveFloor({ config: appConfig, port: UNLIMITED_PORTS.app, inspector: UNLIMITED_PORTS.inspectors[0]!, state });
    try {
      await app.ready();
      return await runsByName([
        ["floor", floor.url, floor.cpu],
        ["app", app.url, app.cpu],
      ]);
    } finally {
      // The next phase's servers open the same D1 files and ports.
      await stopAndWait([app.pid, floor.pid], () => {
        app.stop();
        floor.stop();
      });
    }
  };
  return {
    routed: await phase(ROUTED_UNLIMITED_FLOOR_CONFIG, writeUnlimitedApp(true)),
    bare: await phase(UNLIMITED_FLOOR_CONFIG, writeUnlimitedApp(false)),
  };
}

/**
 * The other checkout's build, served on its own D1 with the same keys sold and activated as here
 * (BENCH_COMPARE): built and set up from its own directory, with its own secrets and migrations.
 */
function serveCompared(dir: string) {
  return inCheckout(dir, async () => {
    execFileSync("npm", ["run", "build"], { stdio: "inherit" });
    const state = mkdtempSync(join(tmpdir(), "bench-licences-compared-"));
    stockCodes(
      state,
      { numericId: VARIANT, title: "Vertex Rust - 30 Days" },
      Array.from({ length: KEYS }, (_, k) => keyOf(k)),
    );
    const app = serveApp(state, { port: COMPARE_PORTS.app, inspector: COMPARE_PORTS.inspector });
    await app.ready();
    await sellKeys(app.url);
    const outcomes = await waitForDeliveries(state, SALE_DELIVERY, KEYS / UNITS_PER_ORDER, { pollMs: 1000 });
    if (outcomes.processed !== KEYS / UNITS_PER_ORDER)
      throw new Error(`${dir}: order webhooks not all processed: ${JSON.stringify(outcomes)}`);
    await activateKeys(app.url);
    return { ...app, state };
  });
}

/** This build against the compared one, floor by floor (comparedInRounds). */
const comparisonOf = (runs: Record<string, Run[]>) =>
  ["floor", "routed floor"].map((floor) => ({ floor, ...comparedInRounds(runs.app!, runs.compared!, runs[floor]!) }));

/** A Worker's row: the median of its runs, figure by figure. */
const medianOf = (name: string, runs: Omit<Row, "name">[]): Row => ({ name, ...medians(runs, ["rps", "p50", "p99", "cpu"]) });

type Run = Awaited<ReturnType<typeof measure>>;

/** ROUNDS runs of each Worker, taken in turns (inTurns): runs by name. */
async function runsByName(workers: [name: string, url: string, cpu: () => number][]): Promise<Record<string, Run[]>> {
  const runs = await inTurns(workers, ROUNDS, ([, url, cpu]) => measure(url, cpu));
  return Object.fromEntries(workers.map(([name], i) => [name, runs[i]!]));
}

/** The answers and statuses of several runs, added up. */
function tallied(runs: Run[]): Tally {
  const add = (into: Record<string, number>, from: Record<string, number>) => {
    for (const [key, n] of Object.entries(from)) into[key] = (into[key] ?? 0) + n;
  };
  const tally: Tally = { statuses: {}, codes: {} };
  for (const run of runs) {
    add(tally.statuses, run.statuses);
    add(tally.codes, run.codes);
  }
  return tally;
}

/**
 * The same requests go to the trivial Worker (which ignores them), so both rows pay the same
 * load-generator cost per request and differ only in what the Worker does.
 */
async function measure(url: string, cpu: () => number): Promise<Omit<Row, "name"> & Tally> {
  const tally: Tally = { statuses: {}, codes: {} };
  const cpuBefore = cpu();
  let first = -1;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [
      {
        method: "POST",
        path: VALIDATE,
        setupRequest: (req: autocannon.Request) => {
          const i = calls++;
          if (first < 0) first = i;
          const call = validateCall(i - first, i);
          return { ...req, body: call.body, headers: { "Content-Type": "application/json", "CF-Connecting-IP": call.address } };
        },
        onResponse: (status: number, body: string) => {
          tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
          const code = /"code":"([A-Z_]+)"/.exec(body)?.[1];
          if (code) tally.codes[code] = (tally.codes[code] ?? 0) + 1;
        },
      },
    ],
  });
  // A 429 means the bench measured its own rate limits, not the API: the figures are void.
  if (result.non2xx || result.errors)
    throw new Error(`${url}: ${result.non2xx} non-2xx (${JSON.stringify(tally.statuses)}), ${result.errors} errors`);
  const cpuMs = Math.round(((cpu() - cpuBefore) * 1000 * 100) / result.requests.total) / 100;
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, cpu: cpuMs, ...tally };
}

/** The goals, for the app's row against the floor's. */
function goalsOf(app: Row, floor: Row) {
  const throughput = ratio(app.rps, floor.rps);
  const p99 = ratio(app.p99, floor.p99);
  return {
    throughput: { target: `≥ ${GOALS.throughput}× the floor's req/s`, value: `${throughput}×`, pass: throughput >= GOALS.throughput },
    p99: { target: `≤ ${GOALS.p99}× the floor's p99`, value: `${p99}× (${app.p99} ms against ${floor.p99} ms)`, pass: p99 <= GOALS.p99 },
  };
}

const verdictOf = (goal: { pass: boolean; value: string }) => `${goal.pass ? "pass" : "**fail**"} (${goal.value})`;

async function main() {
  execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  for (const port of [
    APP_PORT,
    TRIVIAL_PORT,
    FLOOR_PORT,
    ...INSPECTOR_PORTS,
    ROUTED_FLOOR.port,
    ROUTED_FLOOR.inspector,
    UNLIMITED_PORTS.app,
    UNLIMITED_PORTS.floor,
    ...UNLIMITED_PORTS.inspectors,
    ...(COMPARE ? [COMPARE_PORTS.app, COMPARE_PORTS.inspector] : []),
  ])
    await assertFree(port);
  const state = mkdtempSync(join(tmpdir(), "bench-licences-"));
  stockCodes(
    state,
    { numericId: VARIANT, title: "Vertex Rust - 30 Days" },
    Array.from({ length: KEYS }, (_, k) => keyOf(k)),
  );
  seedFloor(state, FLOOR_CONFIG);
  seedFloor(state, ROUTED_FLOOR.config);
  const vars = { SIGNING_KEY: secret("LICENCE_SIGNING_KEY") };
  const floor = { config: FLOOR_CONFIG, port: FLOOR_PORT, inspector: INSPECTOR_PORTS[2]!, vars, state };
  const served = serveWithTrivial(state, { app: APP_PORT, trivial: TRIVIAL_PORT, inspectors: INSPECTOR_PORTS }, floor);
  const { appUrl, trivialUrl, floorUrl, cpu } = served;
  // Started once the others are up: two processes opening their files in one state directory at
  // once lock each other out.
  let routedFloor: ReturnType<typeof serveFloor> | undefined;
  let compared: Awaited<ReturnType<typeof serveCompared>> | undefined;
  const stop = () => {
    served.stop();
    routedFloor?.stop();
    compared?.stop();
  };
  try {
    await served.ready();
    routedFloor = serveFloor({ ...ROUTED_FLOOR, vars, state });
    await routedFloor.ready();
    let started = performance.now();
    await sellKeys(appUrl);
    // The webhook only queues an order: its keys exist once the queue's consumer has handled it.
    const outcomes = await waitForDeliveries(state, SALE_DELIVERY, KEYS / UNITS_PER_ORDER, { pollMs: 1000 });
    if (outcomes.processed !== KEYS / UNITS_PER_ORDER) throw new Error(`order webhooks not all processed: ${JSON.stringify(outcomes)}`);
    console.log(
      `${KEYS} keys sold by ${KEYS / UNITS_PER_ORDER} order webhooks in ${Math.round(performance.now() - started)} ms (queued and fulfilled)`,
    );
    started = performance.now();
    await activateKeys(appUrl);
    await activateKeys(floorUrl);
    await activateKeys(routedFloor.url);
    console.log(`${KEYS} keys activated in the app and in both floors in ${Math.round(performance.now() - started)} ms`);
    if (COMPARE) {
      compared = await serveCompared(COMPARE);
      console.log(`${COMPARE}: built, served and its ${KEYS} keys sold and activated`);
    }

    // The machine's state drifts: each Worker's row is the median of ROUNDS runs, taken in turns.
    const runs = await runsByName([
      ["trivial", trivialUrl, cpu.trivial],
      ["floor", floorUrl, cpu.floor],
      ["routed floor", routedFloor.url, routedFloor.cpu],
      ["app", appUrl, cpu.app],
      ...(compared ? [["compared", compared.url, compared.cpu] as [string, string, () => number]] : []),
    ]);
    for (const [name, list] of Object.entries(runs)) console.log(name, list);
    const validate = tallied(runs.app!);
    const comparison = compared ? comparisonOf(runs) : undefined;
    for (const row of comparison ?? []) console.log(`A/B against the ${row.floor} (the other: ${COMPARE}): ${comparisonInWords(row)}`);

    const measured = Object.values(validate.codes).reduce((a, b) => a + b, 0);
    const stray = Object.keys(validate.codes).filter((code) => !(CODES as readonly string[]).includes(code));
    if (stray.length > 0 || CODES.some((code) => (validate.codes[code] ?? 0) < measured / 4))
      throw new Error(`unexpected mix of answers: ${JSON.stringify(validate.codes)}`);
    for (const name of ["floor", "routed floor", ...(compared ? ["compared"] : [])]) {
      const floorCodes = runs[name]!.flatMap((r) => Object.keys(r.codes));
      if (CODES.some((code) => !floorCodes.includes(code)))
        throw new Error(`the ${name} did not answer the same mix: ${JSON.stringify(runs[name]!.map((r) => r.codes))}`);
    }

    const load: Row[] = [
      medianOf(`trivial Worker (median of ${ROUNDS} runs)`, runs.trivial!),
      medianOf(`licence floor (median of ${ROUNDS} runs)`, runs.floor!),
      medianOf(`licence floor behind the static-asset router, as the app is served (median of ${ROUNDS} runs)`, runs["routed floor"]!),
      medianOf(`POST ${VALIDATE} (mix; median of ${ROUNDS} runs)`, runs.app!),
    ];
    const [trivial, floorRow, routedFloorRow, app] = load as [Row, Row, Row, Row];
    const goals = goalsOf(app, floorRow);
    const routedGoals = goalsOf(app, routedFloorRow);
    printGoals(goals, "against the floor");
    printGoals(routedGoals, "against the floor behind the router");

    // The same comparison with both rate limiters a no-op, behind the asset router and without it:
    // how much of each row those two local simulations take. The first pass's servers hold the D1
    // files: they go first.
    await stopAndWait([...served.pids, routedFloor.pid, compared?.pid], stop);
    const noLimits = await measureUnlimited(state);
    const unlimitedPairs = [
      [
        medianOf(`licence floor behind the asset router, rate limits a no-op (median of ${ROUNDS} runs)`, noLimits.routed.floor!),
        medianOf(`POST ${VALIDATE} (mix) as deployed, rate limits a no-op (median of ${ROUNDS} runs)`, noLimits.routed.app!),
      ],
      [
        medianOf(`licence floor, rate limits a no-op (median of ${ROUNDS} runs)`, noLimits.bare.floor!),
        medianOf(`POST ${VALIDATE} (mix) without the asset router, rate limits a no-op (median of ${ROUNDS} runs)`, noLimits.bare.app!),
      ],
    ] as const;
    // Each app row against the floor served the same way.
    const unlimitedRows = unlimitedPairs.flatMap(([floorOf, appOf]) => [
      { row: floorOf, floor: floorOf },
      { row: appOf, floor: floorOf },
    ]);
    const [bareFloor, bareApp] = unlimitedPairs[1];
    const localGoals = goalsOf(bareApp, bareFloor);
    printGoals(localGoals, "without the local rate limits and asset router");

    const results = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd)`,
      connections: CONNECTIONS,
      seconds: DURATION,
      load,
      runs,
      unlimited: { rows: unlimitedRows.map(({ row }) => row), runs: noLimits },
      answers: validate.codes,
      statuses: validate.statuses,
      goals,
      goalsAgainstTheFloorBehindTheRouter: routedGoals,
      goalsWithoutLocalSimulations: localGoals,
      ...(comparison ? { comparedWith: COMPARE, comparison } : {}),
    };
    const markdown = [
      "| scenario | req/s | p50 ms | p99 ms | req/s vs trivial | req/s vs floor | p99 vs floor | req/s vs floor behind the router | p99 vs floor behind the router | Worker CPU ms per call | CPU vs floor |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...load.map(
        (r) =>
          `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${ratio(r.rps, trivial.rps)}× | ${ratio(r.rps, floorRow.rps)}× | ${ratio(r.p99, floorRow.p99)}× | ${ratio(r.rps, routedFloorRow.rps)}× | ${ratio(r.p99, routedFloorRow.p99)}× | ${r.cpu} | ${ratio(r.cpu, floorRow.cpu)}× |`,
      ),
      "",
      `Goals: throughput ${goals.throughput.target}: ${verdictOf(goals.throughput)}; p99 ${goals.p99.target}: ${verdictOf(goals.p99)}. Against the floor served as the app is, behind the local static-asset router: throughput ${verdictOf(routedGoals.throughput)}; p99 ${verdictOf(routedGoals.p99)}.`,
      "",
      "The same run with both rate-limiting bindings swapped for a no-op in app and floor alike (a bench-only entry and configuration without `ratelimits`; same D1, same keys), first both behind the static-asset router, then both without it; each row is compared with the floor served the same way:",
      "",
      "| scenario | req/s | p50 ms | p99 ms | req/s vs trivial | req/s vs floor (same serving) | p99 vs floor (same serving) | Worker CPU ms per call | CPU vs floor (same serving) |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...unlimitedRows.map(
        ({ row: r, floor: f }) =>
          `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${ratio(r.rps, trivial.rps)}× | ${ratio(r.rps, f.rps)}× | ${ratio(r.p99, f.p99)}× | ${r.cpu} | ${ratio(r.cpu, f.cpu)}× |`,
      ),
      "",
      `Goals with the local rate limits and asset router taken out of both: throughput ${verdictOf(localGoals.throughput)}; p99 ${verdictOf(localGoals.p99)}.`,
      "",
      ...(comparison
        ? [
            `Measured in the same rounds, the build of another checkout (BENCH_COMPARE): ${comparison
              .map((row) => `against the ${row.floor}, ${comparisonInWords(row)}`)
              .join("; ")}.`,
            "",
          ]
        : []),
      `Measured ${results.date} with ${CONNECTIONS} connections × ${DURATION} s per run (autocannon), ${ROUNDS} runs per row taken in turns, ${results.machine}; the app's answers over its runs: ${CODES.map((code) => `${validate.codes[code] ?? 0} ${code}`).join(", ")}, every one 200 (no 429).`,
    ].join("\n");
    publish("licences", results, markdown);
  } finally {
    stop();
    rmSync(state, { recursive: true, force: true });
    if (compared) rmSync(compared.state, { recursive: true, force: true });
  }
}

await main();
