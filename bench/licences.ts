// Licence API benchmark: builds the app, serves the production build with wrangler's local
// workerd, sells keys the way the shop does (order webhooks, keys handed out by the fulfilment
// queue) and activates them, then measures, in one run,
// POST /api/v1/licences/validate for an even mix of valid, mismatched and unknown keys next to a
// trivial Worker and the licence floor (bench/floors/licence-floor.js: two rate-limit calls, one
// indexed D1 read of the same keys, a bind when free, an Ed25519 signature), all served by the
// same runtime. Checks the goals (at least 0.8× the floor's answered checks a second, p99 at most
// 1.3× the floor's) and writes the figures to bench/results/licences.json and into the README
// between the licences bench markers.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { assertFree, builtConfig, median, orderPaidHeaders, publish, ratio, secret, serveFloor, serveWithTrivial, stockCodes, stopAndWait, waitForDeliveries, wrangler, wrappedBuild } from "./shared.ts";

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
const VALIDATE = "/api/v1/licences/validate";
const APP_PORT = 8791;
const TRIVIAL_PORT = 8792;
const FLOOR_PORT = 8799;
const INSPECTOR_PORTS = [8793, 8794, 8800];
const FLOOR_CONFIG = "bench/floors/licence-floor.wrangler.toml";
// The second pass: app and floor with their rate-limiting bindings swapped for a no-op
// (bench/floors/unlimited.js), each from a configuration without `ratelimits`, on the same D1.
const UNLIMITED_FLOOR_CONFIG = "bench/floors/licence-floor.unlimited.wrangler.toml";
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
// the same build): every Worker is run this many times, in turns, and each row is the median.
const ROUNDS = 3;
const SALE_DELIVERY = "bench-order-";

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

// One counter for every call the bench makes: each gets its own client address and nonce, so the
// per-address limit (300 a minute) never counts two calls against one address.
let calls = 0;
const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const nonce = (i: number) => `bench-nonce-${String(i).padStart(10, "0")}`;

/** The i-th measured call: a third each of valid, mismatched and unknown keys, keys in rotation. */
function validateCall(i: number) {
  const slot = Math.floor(i / 3);
  const k = slot % KEYS;
  const body = [
    { key: keyOf(k), hwid: hwidOf(k) },
    { key: keyOf((k + KEYS / 2) % KEYS), hwid: OTHER_PC },
    { key: `BENCH-UNKNOWN-${slot}`, hwid: hwidOf(k) },
  ][i % 3]!;
  return JSON.stringify({ ...body, nonce: nonce(i) });
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
      line_items: [{ id: id * 10, variant_id: VARIANT, quantity: UNITS_PER_ORDER, title: "Vertex Rust", variant_title: "30 Days", price: "89.99" }],
    });
    const response = await fetch(`${url}/webhooks/shopify`, {
      method: "POST",
      headers: orderPaidHeaders(body, `${SALE_DELIVERY}${id}`),
      body,
    });
    if (!response.ok) throw new Error(`order webhook ${id}: ${response.status} ${await response.text()}`);
  }
}

/** The floor's table of the same keys, free to bind, with the one index its read needs (the key). */
function seedFloor(state: string) {
  const rows = Array.from({ length: KEYS }, (_, k) => `('${keyOf(k)}', '30 Days')`).join(", ");
  wrangler([
    "d1", "execute", "DB", "--local", "--persist-to", state, "-c", FLOOR_CONFIG, "--command",
    `create table licences (key text primary key, hwid text, plan text not null, activated_at integer, expires_at integer); insert into licences (key, plan) values ${rows};`,
  ]);
}

/** The first call of each key binds it to its PC, as a loader's first check does. */
async function activateKeys(url: string) {
  let next = 0;
  const worker = async () => {
    for (let k = next++; k < KEYS; k = next++) {
      const i = calls++;
      const response = await fetch(url + VALIDATE, {
        method: "POST",
        headers: { "Content-Type": "application/json", "CF-Connecting-IP": address(i) },
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
 * (bench/floors/unlimited.js, copied next to the build), from a configuration without `ratelimits`.
 */
function writeUnlimitedApp(): string {
  const names = (builtConfig().ratelimits ?? []).map((binding) => binding.name);
  return wrappedBuild("unlimited", "unlimited", "unlimited", [names], (config) => ({ ...config, ratelimits: [] }));
}

/** Floor and app with no-op rate limiters, in turns, on the same D1 and keys as the first pass. */
async function measureUnlimited(state: string) {
  const appConfig = writeUnlimitedApp();
  // One after the other: two processes opening one SQLite file at once lock each other out.
  const floor = serveFloor({ config: UNLIMITED_FLOOR_CONFIG, port: UNLIMITED_PORTS.floor, inspector: UNLIMITED_PORTS.inspectors[1]!, vars: { SIGNING_KEY: secret("LICENCE_SIGNING_KEY") }, state });
  await floor.ready();
  const app = serveFloor({ config: appConfig, port: UNLIMITED_PORTS.app, inspector: UNLIMITED_PORTS.inspectors[0]!, state });
  try {
    await app.ready();
    return await inTurns([
      ["floor", floor.url, floor.cpu],
      ["app", app.url, app.cpu],
    ]);
  } finally {
    app.stop();
    floor.stop();
  }
}

/** A Worker's row: the median of its runs, figure by figure. */
function medianOf(name: string, runs: Omit<Row, "name">[]): Row {
  const of = (figure: (run: Omit<Row, "name">) => number) => median(runs.map(figure));
  return { name, rps: of((r) => r.rps), p50: of((r) => r.p50), p99: of((r) => r.p99), cpu: of((r) => r.cpu) };
}

type Run = Awaited<ReturnType<typeof measure>>;

/**
 * ROUNDS runs of each Worker, taken in turns (the order reversed every other round), so a drift of
 * the machine's state falls on every row alike: runs by name.
 */
async function inTurns(workers: [name: string, url: string, cpu: () => number][]): Promise<Record<string, Run[]>> {
  const runs: Record<string, Run[]> = Object.fromEntries(workers.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, url, cpu] of round % 2 === 0 ? workers : [...workers].reverse()) runs[name]!.push(await measure(url, cpu));
  }
  return runs;
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
          return { ...req, body: validateCall(i - first), headers: { "Content-Type": "application/json", "CF-Connecting-IP": address(i) } };
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
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx (${JSON.stringify(tally.statuses)}), ${result.errors} errors`);
  const cpuMs = Math.round(((cpu() - cpuBefore) * 1000 * 100) / result.requests.total) / 100;
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, cpu: cpuMs, ...tally };
}

async function main() {
  execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  for (const port of [APP_PORT, TRIVIAL_PORT, FLOOR_PORT, ...INSPECTOR_PORTS, UNLIMITED_PORTS.app, UNLIMITED_PORTS.floor, ...UNLIMITED_PORTS.inspectors]) await assertFree(port);
  const state = mkdtempSync(join(tmpdir(), "bench-licences-"));
  stockCodes(state, { numericId: VARIANT, title: "Vertex Rust - 30 Days" }, Array.from({ length: KEYS }, (_, k) => keyOf(k)));
  seedFloor(state);
  const floor = { config: FLOOR_CONFIG, port: FLOOR_PORT, inspector: INSPECTOR_PORTS[2]!, vars: { SIGNING_KEY: secret("LICENCE_SIGNING_KEY") }, state };
  const { appUrl, trivialUrl, floorUrl, cpu, pids, ready, stop } = serveWithTrivial(state, { app: APP_PORT, trivial: TRIVIAL_PORT, inspectors: INSPECTOR_PORTS }, floor);
  try {
    await ready();
    let started = performance.now();
    await sellKeys(appUrl);
    // The webhook only queues an order: its keys exist once the queue's consumer has handled it.
    const outcomes = await waitForDeliveries(state, SALE_DELIVERY, KEYS / UNITS_PER_ORDER, { pollMs: 1000 });
    if (outcomes.processed !== KEYS / UNITS_PER_ORDER) throw new Error(`order webhooks not all processed: ${JSON.stringify(outcomes)}`);
    console.log(`${KEYS} keys sold by ${KEYS / UNITS_PER_ORDER} order webhooks in ${Math.round(performance.now() - started)} ms (queued and fulfilled)`);
    started = performance.now();
    await activateKeys(appUrl);
    await activateKeys(floorUrl);
    console.log(`${KEYS} keys activated in the app and in the floor in ${Math.round(performance.now() - started)} ms`);

    // The machine's state drifts: each Worker's row is the median of ROUNDS runs, taken in turns.
    const runs = await inTurns([
      ["trivial", trivialUrl, cpu.trivial],
      ["floor", floorUrl, cpu.floor],
      ["app", appUrl, cpu.app],
    ]);
    for (const [name, list] of Object.entries(runs)) console.log(name, list);
    const validate = tallied(runs.app!);

    const measured = Object.values(validate.codes).reduce((a, b) => a + b, 0);
    const stray = Object.keys(validate.codes).filter((code) => !(CODES as readonly string[]).includes(code));
    if (stray.length > 0 || CODES.some((code) => (validate.codes[code] ?? 0) < measured / 4)) throw new Error(`unexpected mix of answers: ${JSON.stringify(validate.codes)}`);
    const floorCodes = runs.floor!.flatMap((r) => Object.keys(r.codes));
    if (CODES.some((code) => !floorCodes.includes(code))) throw new Error(`the floor did not answer the same mix: ${JSON.stringify(runs.floor!.map((r) => r.codes))}`);

    const load: Row[] = [
      medianOf(`trivial Worker (median of ${ROUNDS} runs)`, runs.trivial!),
      medianOf(`licence floor (median of ${ROUNDS} runs)`, runs.floor!),
      medianOf(`POST ${VALIDATE} (mix; median of ${ROUNDS} runs)`, runs.app!),
    ];
    const [trivial, floorRow, app] = load as [Row, Row, Row];
    const throughput = ratio(app.rps, floorRow.rps);
    const p99 = ratio(app.p99, floorRow.p99);
    const goals = {
      throughput: { target: `≥ ${GOALS.throughput}× the floor's req/s`, value: `${throughput}×`, pass: throughput >= GOALS.throughput },
      p99: { target: `≤ ${GOALS.p99}× the floor's p99`, value: `${p99}× (${app.p99} ms against ${floorRow.p99} ms)`, pass: p99 <= GOALS.p99 },
    };
    for (const [goal, { target, value, pass }] of Object.entries(goals)) console.log(`${pass ? "PASS" : "FAIL"} ${goal}: ${value} (goal ${target})`);

    // The same comparison with both rate limiters a no-op: how much of each row the local
    // rate-limit simulation takes. The first pass's servers hold the D1 files: they go first.
    await stopAndWait(pids, stop);
    const noLimits = await measureUnlimited(state);
    const unlimitedRows: Row[] = [
      medianOf(`licence floor, rate limits a no-op (median of ${ROUNDS} runs)`, noLimits.floor!),
      medianOf(`POST ${VALIDATE} (mix), rate limits a no-op (median of ${ROUNDS} runs)`, noLimits.app!),
    ];
    const [unlimitedFloor, unlimitedApp] = unlimitedRows as [Row, Row];
    console.log("rate limits a no-op", noLimits, `throughput ${ratio(unlimitedApp.rps, unlimitedFloor.rps)}× the floor's`);

    const results = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd)`,
      connections: CONNECTIONS,
      seconds: DURATION,
      load,
      runs,
      unlimited: { rows: unlimitedRows, runs: noLimits },
      answers: validate.codes,
      statuses: validate.statuses,
      goals,
    };
    const markdown = [
      "| scenario | req/s | p50 ms | p99 ms | req/s vs trivial | req/s vs floor | p99 vs floor | Worker CPU ms per call | CPU vs floor |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...load.map((r) => `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${ratio(r.rps, trivial.rps)}× | ${ratio(r.rps, floorRow.rps)}× | ${ratio(r.p99, floorRow.p99)}× | ${r.cpu} | ${ratio(r.cpu, floorRow.cpu)}× |`),
      "",
      `Goals: throughput ${goals.throughput.target}: ${goals.throughput.pass ? "pass" : "**fail**"} (${goals.throughput.value}); p99 ${goals.p99.target}: ${goals.p99.pass ? "pass" : "**fail**"} (${goals.p99.value}).`,
      "",
      "The same run with both rate-limiting bindings swapped for a no-op in app and floor alike (a bench-only entry and configuration without `ratelimits`; same D1, same keys):",
      "",
      "| scenario | req/s | p50 ms | p99 ms | req/s vs trivial | req/s vs floor (no-op) | p99 vs floor (no-op) | Worker CPU ms per call | CPU vs floor (no-op) |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...unlimitedRows.map((r) => `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${ratio(r.rps, trivial.rps)}× | ${ratio(r.rps, unlimitedFloor.rps)}× | ${ratio(r.p99, unlimitedFloor.p99)}× | ${r.cpu} | ${ratio(r.cpu, unlimitedFloor.cpu)}× |`),
      "",
      `Measured ${results.date} with ${CONNECTIONS} connections × ${DURATION} s per run (autocannon), ${ROUNDS} runs per row taken in turns, ${results.machine}; the app's answers over its runs: ${CODES.map((code) => `${validate.codes[code] ?? 0} ${code}`).join(", ")}, every one 200 (no 429).`,
    ].join("\n");
    publish("licences", results, markdown);
  } finally {
    stop();
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
