// Licence API benchmark: builds the app, serves the production build with wrangler's local
// workerd, sells keys the way the shop does (order webhooks, keys handed out by the fulfilment
// queue) and activates them, then measures, in one run,
// POST /api/v1/licences/validate for an even mix of valid, mismatched and unknown keys next to a
// trivial Worker served by the same runtime. Checks the goals (at least 50% of the trivial
// Worker's requests/s, p99 under 50 ms) and writes the figures to bench/results/licences.json and
// into the README between the licences bench markers.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { assertFree, orderPaidHeaders, publish, serveWithTrivial, stockCodes, waitForDeliveries } from "./shared.ts";

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
const VALIDATE = "/api/v1/licences/validate";
const APP_PORT = 8791;
const TRIVIAL_PORT = 8792;
const INSPECTOR_PORTS = [8793, 8794];
// The per-key limit is 60 calls in a wall-clock minute. Each known key gets one activation, then
// two of every 3 × KEYS measured calls: 600 keys stay under the limit even through a whole minute
// at 850 calls a second, more than the trivial Worker serves here.
const KEYS = 600;
const UNITS_PER_ORDER = 50;
const VARIANT = 7_100_000_001;
const CODES = ["VALID", "HWID_MISMATCH", "NOT_FOUND"] as const;
const GOALS = { ratio: 0.5, p99: 50 };
const SALE_DELIVERY = "bench-order-";

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
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
 * The same requests go to the trivial Worker (which ignores them), so both rows pay the same
 * load-generator cost per request and differ only in what the Worker does.
 */
async function measure(url: string): Promise<Omit<Row, "name"> & Tally> {
  const tally: Tally = { statuses: {}, codes: {} };
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
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, ...tally };
}

async function main() {
  execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  for (const port of [APP_PORT, TRIVIAL_PORT, ...INSPECTOR_PORTS]) await assertFree(port);
  const state = mkdtempSync(join(tmpdir(), "bench-licences-"));
  stockCodes(state, { numericId: VARIANT, title: "Vertex Rust - 30 Days" }, Array.from({ length: KEYS }, (_, k) => keyOf(k)));
  const { appUrl, trivialUrl, ready, stop } = serveWithTrivial(state, { app: APP_PORT, trivial: TRIVIAL_PORT, inspectors: INSPECTOR_PORTS });
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
    console.log(`${KEYS} keys activated in ${Math.round(performance.now() - started)} ms`);

    const baseline = await measure(trivialUrl);
    console.log("trivial", baseline);
    const validate = await measure(appUrl);
    console.log("validate", validate);
    // The baseline again at the end, averaged with the first: the machine's state drifts.
    const again = await measure(trivialUrl);
    console.log("trivial", again);

    const measured = Object.values(validate.codes).reduce((a, b) => a + b, 0);
    const stray = Object.keys(validate.codes).filter((code) => !(CODES as readonly string[]).includes(code));
    if (stray.length > 0 || CODES.some((code) => (validate.codes[code] ?? 0) < measured / 4)) throw new Error(`unexpected mix of answers: ${JSON.stringify(validate.codes)}`);

    const load: Row[] = [
      { name: "trivial Worker (mean of first and last run)", rps: Math.round((baseline.rps + again.rps) / 2), p50: (baseline.p50 + again.p50) / 2, p99: (baseline.p99 + again.p99) / 2 },
      { name: `POST ${VALIDATE} (mix)`, rps: validate.rps, p50: validate.p50, p99: validate.p99 },
    ];
    const ratio = validate.rps / load[0]!.rps;
    const goals = {
      throughput: { target: `≥ ${GOALS.ratio * 100}% of trivial`, value: `${Math.round(ratio * 100)}%`, pass: ratio >= GOALS.ratio },
      p99: { target: `< ${GOALS.p99} ms`, value: `${validate.p99} ms`, pass: validate.p99 < GOALS.p99 },
    };
    for (const [goal, { target, value, pass }] of Object.entries(goals)) console.log(`${pass ? "PASS" : "FAIL"} ${goal}: ${value} (goal ${target})`);

    const results = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd)`,
      connections: CONNECTIONS,
      seconds: DURATION,
      load,
      answers: validate.codes,
      statuses: validate.statuses,
      goals,
    };
    const markdown = [
      "| scenario | req/s | p50 ms | p99 ms | vs trivial |",
      "|---|---:|---:|---:|---:|",
      ...load.map((r) => `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${Math.round((r.rps / load[0]!.rps) * 100)}% |`),
      "",
      `Goals: throughput ${goals.throughput.target}: ${goals.throughput.pass ? "pass" : "**fail**"} (${goals.throughput.value}); p99 ${goals.p99.target}: ${goals.p99.pass ? "pass" : "**fail**"} (${goals.p99.value}).`,
      "",
      `Measured ${results.date} with ${CONNECTIONS} connections × ${DURATION} s per row (autocannon), ${results.machine}; answers: ${CODES.map((code) => `${validate.codes[code] ?? 0} ${code}`).join(", ")}, every one 200 (no 429).`,
    ].join("\n");
    publish("licences", results, markdown);
  } finally {
    stop();
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
