// Storefront benchmark: builds the app, serves the production build with wrangler's local
// workerd, and measures, in one run:
//   - requests/s and p50/p99 latency for "/" and a product page, served from the Worker's page
//     cache, rendered on every request (EDGE_CACHE=off), and as cache misses (render + cache
//     write), next to a trivial Worker and the page floor (bench/floors/page-floor.js, answering
//     each cached page's own bytes and headers from memory) served by the same runtime, bare
//     and behind the static-asset router as the app is (page-floor.assets.wrangler.toml);
//   - the gzip size of the JavaScript a browser downloads for the home page, hydration included;
//   - Lighthouse (mobile) performance and CLS for "/" and the product page, in Debian's Chromium.
// Results go to bench/results/storefront.json and into docs/performance.md between the bench markers.
import { type ChildProcess, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { chromium } from "@playwright/test";
import { type Goal, inTurns, medians, printGoals, publish, ratio, serveFloor, waitFor, wrangler, wranglerDev } from "./shared.ts";

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
// Runs per row, taken in turns; each row is the median of its runs.
const ROUNDS = 3;
const PRODUCT = "/product/vertex-rust";
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const servers: ChildProcess[] = [];
const GOALS = { cachedVsFloor: 0.8, uncachedVsRoutedFloor: 0.5, homeJsKB: 125 };
// Each server's port and inspector port; overridable (BENCH_PORT_APP=…) to run beside other benches.
const PORTS = Object.fromEntries(
  Object.entries({ app: 4181, uncached: 4182, trivial: 4183, floor: 4184, routedFloor: 4185 }).map(([name, port]) => [
    name,
    {
      port: Number(process.env[`BENCH_PORT_${name.toUpperCase()}`] ?? port),
      inspector: Number(process.env[`BENCH_INSPECTOR_${name.toUpperCase()}`] ?? port + 5120),
    },
  ]),
) as Record<"app" | "uncached" | "trivial" | "floor" | "routedFloor", { port: number; inspector: number }>;
// Written here from the app's own answer before the page floor starts; never committed.
const PAGE_FLOOR = {
  home: "bench/floors/page-floor.html",
  product: "bench/floors/page-floor.product.html",
  headers: "bench/floors/page-floor.json",
};
// Per connection, not per answer: the floor's runtime sets them itself.
const HOP_HEADERS = ["connection", "keep-alive", "transfer-encoding", "content-length", "date"];

interface Row {
  name: string;
  /** The page measured; none for the trivial Worker. */
  path?: string;
  /** Set on the floors' rows: served bare, or behind the static-asset router as the app is. */
  floor?: "bare" | "routed";
  rps: number;
  p50: number;
  p99: number;
}

interface Audit {
  performance: number;
  cls: number;
  lcpMs: number;
  tbtMs: number;
}

interface Results {
  date: string;
  machine: string;
  load: Row[];
  js: { files: number; gzipKB: number };
  lighthouse: (Audit & { page: string; runs: string })[];
}

function start(name: string, args: string[], port: number) {
  servers.push(wranglerDev(args, port));
  return { name, url: `http://127.0.0.1:${port}` };
}

async function measure(url: string, path: string, unique = false): Promise<Omit<Row, "name">> {
  let n = 0;
  const result = await autocannon({
    url: url + path,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: unique
      ? [{ setupRequest: (req: autocannon.Request) => ({ ...req, path: `${path}?bench=${Date.now()}-${n++}` }) }]
      : undefined,
  });
  if (result.non2xx || result.errors) throw new Error(`${url}${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99 };
}

/** A cached page's bytes and headers as autocannon gets them (no Accept-Encoding). */
function capture(url: string) {
  return new Promise<{ headers: Record<string, string>; body: Buffer }>((resolve, reject) => {
    request(url, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ headers: res.headers as Record<string, string>, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

/**
 * The cached home and product pages, written for the page floor to answer from memory: each path
 * its own bytes and headers.
 */
async function capturePages(url: string) {
  const [home, product] = [await capture(`${url}/`), await capture(url + PRODUCT)];
  const kept = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_HEADERS.includes(name)));
  writeFileSync(PAGE_FLOOR.home, home.body);
  writeFileSync(PAGE_FLOOR.product, product.body);
  writeFileSync(PAGE_FLOOR.headers, JSON.stringify({ productPath: PRODUCT, home: kept(home.headers), product: kept(product.headers) }));
  return { home: home.body.byteLength, product: product.body.byteLength };
}

/** The JavaScript a browser downloads for "/" until the network is idle (hydration included), gzipped. */
async function homeJavaScript(url: string) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    const page = await browser.newPage();
    const scripts = new Map<string, Promise<Buffer>>();
    page.on("response", (response) => {
      // Module preloads are not "script" requests to the browser: every .js answer counts.
      if (new URL(response.url()).pathname.endsWith(".js") && response.ok()) scripts.set(response.url(), response.body());
    });
    await page.goto(`${url}/`, { waitUntil: "networkidle" });
    let gzip = 0;
    for (const body of scripts.values()) gzip += gzipSync(await body).byteLength;
    return { files: scripts.size, gzipKB: Math.round((gzip / 1024) * 10) / 10 };
  } finally {
    await browser.close();
  }
}

// Lighthouse varies from run to run; its documentation recommends the median of several runs.
const AUDIT_RUNS = 3;

async function auditOnce(url: string): Promise<Audit> {
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM,
    chromeFlags: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  try {
    const result = await lighthouse(url, { port: chrome.port, onlyCategories: ["performance"], logLevel: "error", output: "json" });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const { lhr } = result;
    // A run that Lighthouse itself could not complete scores 0; it is a failed measurement.
    if (lhr.runtimeError) throw new Error(`Lighthouse failed on ${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    return {
      performance: Math.round((lhr.categories.performance?.score ?? 0) * 100),
      cls: Math.round((lhr.audits["cumulative-layout-shift"]?.numericValue ?? 0) * 1000) / 1000,
      lcpMs: Math.round(lhr.audits["largest-contentful-paint"]?.numericValue ?? 0),
      tbtMs: Math.round(lhr.audits["total-blocking-time"]?.numericValue ?? 0),
    };
  } finally {
    await chrome.kill();
  }
}

async function audit(url: string) {
  const runs: Audit[] = [];
  let failures = 0;
  while (runs.length < AUDIT_RUNS) {
    try {
      runs.push(await auditOnce(url));
    } catch (error) {
      // Measured again, at most twice in all; every failure is reported.
      console.error(error);
      if (++failures > 2) throw error;
    }
  }
  runs.sort((a, b) => a.performance - b.performance);
  return { ...runs[Math.floor(AUDIT_RUNS / 2)]!, runs: runs.map((r) => r.performance).join("/") };
}

/**
 * The rendered pages' goal: each page rendered on every request (no cache) at least
 * `uncachedVsRoutedFloor` × the page floor's req/s behind the static-asset router, as the app is served.
 */
function renderGoals(load: Row[]): Record<string, Goal> {
  return Object.fromEntries(
    load
      .filter((r) => r.name.includes(" uncached "))
      .map((r) => {
        const floor = load.find((f) => f.path === r.path && f.floor === "routed")!;
        const versus = ratio(r.rps, floor.rps);
        return [
          `${r.path} rendered every request`,
          {
            target: `≥ ${GOALS.uncachedVsRoutedFloor}× the page floor's req/s behind the router`,
            value: `${versus}× (${r.rps} against ${floor.rps})`,
            pass: versus >= GOALS.uncachedVsRoutedFloor,
          },
        ];
      }),
  );
}

function table(results: Results) {
  const trivial = results.load[0]!;
  // Each page's rows are compared with the floors' rows for the same path: the same bytes.
  const floorOf = (r: Row, routed: boolean) => results.load.find((f) => f.path === r.path && f.floor === (routed ? "routed" : "bare"))!;
  const cached = results.load.filter((r) => r.name.endsWith(" cached"));
  const pass = (ok: boolean) => (ok ? "pass" : "**fail**");
  const versus = (r: Row, routed: boolean) => (r.path ? `${ratio(r.rps, floorOf(r, routed).rps)}×` : "");
  const rows = [
    "| scenario | req/s | p50 ms | p99 ms | vs trivial | vs page floor (same page) | vs page floor behind the router (same page) |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...results.load.map(
      (r) => `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${ratio(r.rps, trivial.rps)}× | ${versus(r, false)} | ${versus(r, true)} |`,
    ),
    "",
    `Goals: cached pages ≥ ${GOALS.cachedVsFloor}× the page floor's req/s for the same page: ${cached.map((r) => `${r.path} ${ratio(r.rps, floorOf(r, false).rps)}× (${pass(ratio(r.rps, floorOf(r, false).rps) >= GOALS.cachedVsFloor)}; ${ratio(r.rps, floorOf(r, true).rps)}× the floor behind the local asset router)`).join(", ")}; home page JavaScript as a browser downloads it ≤ ${GOALS.homeJsKB} KB gzip: ${results.js.gzipKB} KB in ${results.js.files} files (${pass(results.js.gzipKB <= GOALS.homeJsKB)}).`,
    "",
    `Rendered pages: ${Object.entries(renderGoals(results.load))
      .map(([goal, { target, value, pass: met }]) => `${goal} ${target}: ${pass(met)} (${value})`)
      .join("; ")}.`,
    "",
    `| Lighthouse (mobile, median of ${AUDIT_RUNS}) | performance | runs | CLS | LCP ms | TBT ms |`,
    "|---|---:|---:|---:|---:|---:|",
    ...results.lighthouse.map((l) => `| ${l.page} | ${l.performance} | ${l.runs} | ${l.cls} | ${l.lcpMs} | ${l.tbtMs} |`),
    "",
    `Measured ${results.date} with ${CONNECTIONS} connections × ${DURATION} s per run (autocannon), ${ROUNDS} runs per row taken in turns, ${results.machine}.`,
  ];
  return rows.join("\n");
}

async function main() {
  execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  const state = mkdtempSync(join(tmpdir(), "bench-state-"));
  // The product page reads its status from D1: the schema must be there.
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state]);
  let floorStop = () => {};
  try {
    const cached = start(
      "app",
      ["-c", "build/server/wrangler.json", "--persist-to", state, "--inspector-port", String(PORTS.app.inspector)],
      PORTS.app.port,
    );
    // Its own copy of the migrated D1: two processes on one SQLite file lock each other out.
    const freshState = join(state, "edge-cache-off");
    cpSync(join(state, "v3"), join(freshState, "v3"), { recursive: true });
    const fresh = start(
      "app, edge cache off",
      [
        "-c",
        "build/server/wrangler.json",
        "--persist-to",
        freshState,
        "--inspector-port",
        String(PORTS.uncached.inspector),
        "--var",
        "EDGE_CACHE:off",
      ],
      PORTS.uncached.port,
    );
    const trivial = start(
      "trivial",
      ["-c", "bench/trivial.wrangler.toml", "--inspector-port", String(PORTS.trivial.inspector)],
      PORTS.trivial.port,
    );
    await Promise.all([waitFor(`${cached.url}/`), waitFor(`${fresh.url}/`), waitFor(`${trivial.url}/`)]);
    // Warm every path once so no row pays for first-request compilation.
    for (const url of [cached.url, fresh.url]) for (const path of ["/", PRODUCT]) await fetch(url + path).then((r) => r.text());
    const pageBytes = await capturePages(cached.url);
    const floor = serveFloor({ config: "bench/floors/page-floor.wrangler.toml", ...PORTS.floor });
    const routedFloor = serveFloor({ config: "bench/floors/page-floor.assets.wrangler.toml", ...PORTS.routedFloor });
    floorStop = () => {
      floor.stop();
      routedFloor.stop();
    };
    await Promise.all([floor.ready(), routedFloor.ready()]);
    console.log(`page floor answers the cached pages' bytes: / ${pageBytes.home}, ${PRODUCT} ${pageBytes.product}`);

    // The machine's state drifts and one run moves by more than the goals' margins: every row is
    // measured ROUNDS times, the rows taken in turns (the order reversed every other round), and
    // each row gives the median of its runs, figure by figure.
    const rows: [Omit<Row, "rps" | "p50" | "p99">, string, boolean][] = [
      [{ name: `trivial Worker (median of ${ROUNDS} runs)` }, trivial.url, false],
    ];
    for (const path of ["/", PRODUCT]) {
      rows.push([
        { name: `page floor: the cached ${path} bytes from memory (median of ${ROUNDS} runs)`, path, floor: "bare" },
        floor.url,
        false,
      ]);
      rows.push([
        {
          name: `page floor behind the static-asset router, as the app is served: ${path} (median of ${ROUNDS} runs)`,
          path,
          floor: "routed",
        },
        routedFloor.url,
        false,
      ]);
    }
    for (const path of ["/", PRODUCT]) {
      rows.push([{ name: `${path} cached`, path }, cached.url, false]);
      rows.push([{ name: `${path} uncached (rendered every request)`, path }, fresh.url, false]);
      rows.push([{ name: `${path} cache miss (render + cache write)`, path }, cached.url, true]);
    }
    const runs = await inTurns(rows, ROUNDS, async ([row, url, unique]) => {
      const measured = await measure(url, row.path ?? "/", unique);
      console.log(row.name, measured);
      return measured;
    });
    const load: Row[] = rows.map(([row], i) => ({ ...row, ...medians(runs[i]!, ["rps", "p50", "p99"]) }));
    printGoals(renderGoals(load));

    const js = await homeJavaScript(cached.url);
    const audits = [];
    for (const page of ["/", PRODUCT]) audits.push({ page, ...(await audit(cached.url + page)) });

    const results: Results = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd)`,
      load,
      js,
      lighthouse: audits,
    };
    publish("storefront", results, table(results));
  } finally {
    for (const child of servers) child.kill("SIGTERM");
    floorStop();
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
