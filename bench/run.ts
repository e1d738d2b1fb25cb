// Storefront benchmark: builds the app, serves the production build with wrangler's local
// workerd, and measures, in one run:
//   - requests/s, p50/p99 latency and the CPU per request of the workerd that runs the Worker, for
//     "/" and a product page, served from the Worker's page
//     cache, rendered on every request (EDGE_CACHE=off), and as cache misses (render + cache
//     write), next to a trivial Worker and the page floor (bench/floors/page-floor.js, answering
//     each cached page's own bytes and headers from memory) served by the same runtime, bare
//     and behind the static-asset router as the app is (page-floor.assets.wrangler.toml), and,
//     for the product page, behind the router after reading the page's data from D1 in one
//     batch, as a render must (page-floor.reads.wrangler.toml);
//   - first, before any load and while the app is the only server, a first visit on a phone
//     (decision 106): the home and product documents' gzip size and the
//     gzip size of the CSS inlined in them, the JavaScript a browser downloads for each page,
//     hydration included (gzip), and Lighthouse (mobile) performance, CLS, LCP of a first view and
//     total blocking time, the median of three runs per page, in Debian's Chromium.
// Each goal is printed as a PASS or FAIL line. Results go to bench/results/storefront.json and into
// docs/performance.md between the bench markers.
// BENCH_PORTS and BENCH_INSPECTOR_PORTS move the six servers and their inspectors to other ports
// (comma-separated, in the order of SERVER_PORTS); BENCH_ONLY=first-load measures only the first
// visit (one server, the first of each list), for a look at the phone's figures without the load rows.
import { type ChildProcess, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type autocannon from "autocannon";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { chromium } from "@playwright/test";
import {
  type Goal,
  inTurns,
  type LoadRun,
  loadRun,
  medians,
  printGoals,
  publish,
  ratio,
  serveFloor,
  stopAndWait,
  waitFor,
  wrangler,
  wranglerDev,
  workerCpu,
} from "./shared.ts";

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
// Runs per row, taken in turns; each row is the median of its runs.
const ROUNDS = 3;
const PRODUCT = "/product/vertex-rust";
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const servers: ChildProcess[] = [];
const GOALS = {
  cachedVsFloor: 0.8,
  uncachedVsRoutedFloor: 0.5,
  pageJsKB: 125,
  homeDocumentKB: 20,
  inlinedCssKB: 14,
  lighthouse: 97,
  tbtMs: 150,
  // The largest paint of a first view before the whole stylesheet left the documents (the run of
  // 2026-11-26): no worse than that.
  lcpMs: { "/": 1069, [PRODUCT]: 1116 } as Record<string, number>,
};
const FIRST_LOAD_ONLY = process.env.BENCH_ONLY === "first-load";
/**
 * The app, the app with its page cache off, the trivial Worker, the page floor bare and behind the
 * router, and the page floor behind the router that reads the product page's data.
 */
const SERVER_PORTS = ports("BENCH_PORTS", "4181,4182,4183,4184,4185,4186");
/** Their inspectors, in the same order. */
const INSPECTOR_PORTS = ports("BENCH_INSPECTOR_PORTS", "9301,9302,9303,9304,9305,9306");

/** Six ports from the environment (only the app's, the first, with BENCH_ONLY=first-load). */
function ports(variable: string, defaults: string): number[] {
  const list = (process.env[variable] ?? defaults).split(",").map(Number);
  if (list.length < (FIRST_LOAD_ONLY ? 1 : 6) || list.some((port) => !Number.isInteger(port) || port <= 0))
    throw new Error(`${variable} takes ${FIRST_LOAD_ONLY ? "at least one port" : "six ports"}, comma-separated`);
  return list;
}
// Written here from the app's own answer before the page floor starts; never committed.
const PAGE_FLOOR = {
  home: "bench/floors/page-floor.html",
  product: "bench/floors/page-floor.product.html",
  headers: "bench/floors/page-floor.json",
};
// Per connection, not per answer: the floor's runtime sets them itself.
const HOP_HEADERS = ["connection", "keep-alive", "transfer-encoding", "content-length", "date"];

/** A load row; its `cpu` is that of the workerd that runs the Worker (`workerCpu`). */
interface Row extends LoadRun {
  name: string;
  /** The page measured; none for the trivial Worker. */
  path?: string;
  /**
   * Set on the floors' rows: served bare, behind the static-asset router as the app is, or behind
   * it and reading the page's data from D1 first.
   */
  floor?: "bare" | "routed" | "reads";
}

/** A server the load rows measure: where it answers, and its process (for its Worker's CPU). */
interface Server {
  url: string;
  pid: number | undefined;
}

interface Audit {
  performance: number;
  cls: number;
  lcpMs: number;
  tbtMs: number;
}

interface FirstLoad {
  page: string;
  /** The document as the page cache serves it, gzipped, and the CSS inlined in it, gzipped. */
  documentKB: number;
  inlinedCssKB: number;
  /** Every script a browser downloads for the page until the network is idle, hydration included. */
  js: { files: number; gzipKB: number };
}

interface Results {
  date: string;
  machine: string;
  load: Row[];
  firstLoad: FirstLoad[];
  lighthouse: (Audit & { page: string; runs: string })[];
}

const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;

function start(args: string[], port: number): Server {
  const child = wranglerDev(args, port);
  servers.push(child);
  return { url: `http://127.0.0.1:${port}`, pid: child.pid };
}

function measure({ url, pid }: Server, path: string, unique = false): Promise<LoadRun> {
  let n = 0;
  const requests = unique
    ? [{ setupRequest: (req: autocannon.Request) => ({ ...req, path: `${path}?bench=${Date.now()}-${n++}` }) }]
    : undefined;
  return loadRun({ url: url + path, connections: CONNECTIONS, duration: DURATION, requests }, workerCpu(pid));
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
  writeFileSync(
    PAGE_FLOOR.headers,
    JSON.stringify({ productPath: PRODUCT, productData: productData(), home: kept(home.headers), product: kept(product.headers) }),
  );
  return { home: home.body.byteLength, product: product.body.byteLength };
}

/** The benched product's id and its variants' ids in the demo catalogue, which the page reads its data by. */
function productData() {
  const catalogue = JSON.parse(readFileSync("app/server/catalogue/demo-catalogue.json", "utf8")) as {
    products: { edges: { node: { id: string; handle: string; variants: { edges: { node: { id: string } }[] } } }[] };
  };
  const handle = PRODUCT.slice("/product/".length);
  const found = catalogue.products.edges.find(({ node }) => node.handle === handle)?.node;
  if (!found) throw new Error(`The demo catalogue has no product ${handle}`);
  return { id: found.id, variantIds: found.variants.edges.map(({ node }) => node.id) };
}

/** A page's document, gzipped, and the gzipped CSS of the <style> elements in it. */
async function documentSizes(url: string) {
  const html = await (await fetch(url)).text();
  const css = [...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((match) => match[1]).join("");
  return { documentKB: kb(gzipSync(html).byteLength), inlinedCssKB: css ? kb(gzipSync(css).byteLength) : 0 };
}

/** The JavaScript a browser downloads for a page until the network is idle (hydration included), gzipped. */
async function pageJavaScript(url: string) {
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
    await page.goto(url, { waitUntil: "networkidle" });
    let gzip = 0;
    for (const body of scripts.values()) gzip += gzipSync(await body).byteLength;
    return { files: scripts.size, gzipKB: kb(gzip) };
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

/** The first visit's goals, page by page (decision 106). */
function firstLoadGoals(results: Results): Record<string, Goal> {
  const goals: Record<string, Goal> = {};
  const home = results.firstLoad.find((f) => f.page === "/")!;
  goals["home document"] = {
    target: `≤ ${GOALS.homeDocumentKB} KB gzip`,
    value: `${home.documentKB} KB`,
    pass: home.documentKB <= GOALS.homeDocumentKB,
  };
  for (const f of results.firstLoad) {
    goals[`CSS inlined in ${f.page}`] = {
      target: `≤ ${GOALS.inlinedCssKB} KB gzip`,
      value: `${f.inlinedCssKB} KB`,
      pass: f.inlinedCssKB <= GOALS.inlinedCssKB,
    };
    goals[`first-load JavaScript of ${f.page}`] = {
      target: `≤ ${GOALS.pageJsKB} KB gzip`,
      value: `${f.js.gzipKB} KB in ${f.js.files} files`,
      pass: f.js.gzipKB <= GOALS.pageJsKB,
    };
  }
  for (const l of results.lighthouse) {
    goals[`Lighthouse mobile ${l.page}`] = {
      target: `≥ ${GOALS.lighthouse}, median of ${AUDIT_RUNS}`,
      value: `${l.performance} (${l.runs})`,
      pass: l.performance >= GOALS.lighthouse,
    };
    goals[`total blocking time ${l.page}`] = { target: `≤ ${GOALS.tbtMs} ms`, value: `${l.tbtMs} ms`, pass: l.tbtMs <= GOALS.tbtMs };
    const lcp = GOALS.lcpMs[l.page];
    if (lcp) goals[`LCP of a first view ${l.page}`] = { target: `≤ ${lcp} ms, as before`, value: `${l.lcpMs} ms`, pass: l.lcpMs <= lcp };
  }
  return goals;
}

/** The row of the page floor of `kind` for the page at `path`: the same bytes as the app's rows for it. */
const floorRow = (load: Row[], path: string | undefined, kind: NonNullable<Row["floor"]>) =>
  load.find((f) => f.path === path && f.floor === kind)!;

function loadTable(results: Results) {
  const trivial = results.load[0]!;
  // Each page's rows are compared with the floors' rows for the same path: the same bytes.
  const floorOf = (r: Row, routed: boolean) => floorRow(results.load, r.path, routed ? "routed" : "bare");
  const cached = results.load.filter((r) => r.name.endsWith(" cached"));
  const pass = (ok: boolean) => (ok ? "pass" : "**fail**");
  const versus = (r: Row, routed: boolean) => (r.path ? `${ratio(r.rps, floorOf(r, routed).rps)}×` : "");
  return [
    "| scenario | req/s | p50 ms | p99 ms | vs trivial | vs page floor (same page) | vs page floor behind the router (same page) | Worker's workerd CPU ms per request |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...results.load.map(
      (r) =>
        `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${ratio(r.rps, trivial.rps)}× | ${versus(r, false)} | ${versus(r, true)} | ${r.cpu} |`,
    ),
    "",
    `Goals: cached pages ≥ ${GOALS.cachedVsFloor}× the page floor's req/s for the same page: ${cached.map((r) => `${r.path} ${ratio(r.rps, floorOf(r, false).rps)}× (${pass(ratio(r.rps, floorOf(r, false).rps) >= GOALS.cachedVsFloor)}; ${ratio(r.rps, floorOf(r, true).rps)}× the floor behind the local asset router)`).join(", ")}.`,
    "",
    readsLine(results.load),
    "",
  ];
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
        const floor = floorRow(load, r.path, "routed");
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

/**
 * What the product page's render costs beyond reading its data: the rendered page against the floor
 * that reads the same data from D1 in one batch before answering, in req/s and in CPU per request
 * (where the read and the render each go). Figures to read beside the goal, which compares with the
 * floor that reads nothing.
 */
function readsLine(load: Row[]) {
  const rendered = load.find((r) => r.path === PRODUCT && r.name.includes(" uncached "))!;
  const reads = floorRow(load, PRODUCT, "reads");
  const routed = floorRow(load, PRODUCT, "routed");
  const ms = (n: number) => `${Math.round(n * 100) / 100} ms`;
  return (
    `Reading the product page's data from D1 (one batch of four statements) takes the routed floor from ${routed.rps} to ${reads.rps} req/s (${ratio(reads.rps, routed.rps)}×); the rendered page answers at ${ratio(rendered.rps, reads.rps)}× that floor. ` +
    `In CPU per request of the workerd that runs each Worker, the routed floor spends ${ms(routed.cpu)}, the reading floor ${ms(reads.cpu)} (the read: ${ms(reads.cpu - routed.cpu)}) and the rendered page ${ms(rendered.cpu)} (its render beyond the read: ${ms(rendered.cpu - reads.cpu)}).`
  );
}

function table(results: Results) {
  const rows = [
    ...(results.load.length ? loadTable(results) : []),
    "| first visit (phone) | document KB gzip | inlined CSS KB gzip | JavaScript KB gzip (files) |",
    "|---|---:|---:|---:|",
    ...results.firstLoad.map((f) => `| ${f.page} | ${f.documentKB} | ${f.inlinedCssKB} | ${f.js.gzipKB} (${f.js.files}) |`),
    "",
    `| Lighthouse (mobile, median of ${AUDIT_RUNS}) | performance | runs | CLS | LCP ms | TBT ms |`,
    "|---|---:|---:|---:|---:|---:|",
    ...results.lighthouse.map((l) => `| ${l.page} | ${l.performance} | ${l.runs} | ${l.cls} | ${l.lcpMs} | ${l.tbtMs} |`),
    "",
    `Goals: ${Object.entries(firstLoadGoals(results))
      .map(([goal, { target, value, pass }]) => `${goal} ${target}: ${value} (${pass ? "pass" : "**fail**"})`)
      .join("; ")}.`,
    "",
    results.load.length
      ? `Measured ${results.date} with ${CONNECTIONS} connections × ${DURATION} s per run (autocannon), ${ROUNDS} runs per row taken in turns, ${results.machine}.`
      : `Measured ${results.date}, first visit only (BENCH_ONLY=first-load), ${results.machine}.`,
  ];
  return rows.join("\n");
}

/**
 * The load rows: the app cached, uncached and on cache misses, next to the trivial Worker and the
 * page floor, bare and behind the router. `cached` is the app already serving; `state` its D1.
 */
async function measureLoad(cached: Server, state: string, floors: ReturnType<typeof serveFloor>[]): Promise<Row[]> {
  // Its own copy of the migrated D1: two processes on one SQLite file lock each other out.
  const freshState = join(state, "edge-cache-off");
  cpSync(join(state, "v3"), join(freshState, "v3"), { recursive: true });
  const fresh = start(
    [
      "-c",
      "build/server/wrangler.json",
      "--persist-to",
      freshState,
      "--inspector-port",
      String(INSPECTOR_PORTS[1]),
      "--var",
      "EDGE_CACHE:off",
    ],
    SERVER_PORTS[1]!,
  );
  const trivial = start(["-c", "bench/trivial.wrangler.toml", "--inspector-port", String(INSPECTOR_PORTS[2])], SERVER_PORTS[2]!);
  await Promise.all([waitFor(`${fresh.url}/`), waitFor(`${trivial.url}/`)]);
  // Warm every path once so no row pays for first-request compilation.
  for (const url of [cached.url, fresh.url]) for (const path of ["/", PRODUCT]) await fetch(url + path).then((r) => r.text());
  const pageBytes = await capturePages(cached.url);
  const floor = serveFloor({ config: "bench/floors/page-floor.wrangler.toml", port: SERVER_PORTS[3]!, inspector: INSPECTOR_PORTS[3]! });
  const routedFloor = serveFloor({
    config: "bench/floors/page-floor.assets.wrangler.toml",
    port: SERVER_PORTS[4]!,
    inspector: INSPECTOR_PORTS[4]!,
  });
  // Its own copy of the migrated D1, as the app's under the same binding and id.
  const readsState = join(state, "page-floor-reads");
  cpSync(join(state, "v3"), join(readsState, "v3"), { recursive: true });
  const readingFloor = serveFloor({
    config: "bench/floors/page-floor.reads.wrangler.toml",
    port: SERVER_PORTS[5]!,
    inspector: INSPECTOR_PORTS[5]!,
    state: readsState,
  });
  floors.push(floor, routedFloor, readingFloor);
  await Promise.all([floor.ready(), routedFloor.ready(), readingFloor.ready()]);
  console.log(`page floor answers the cached pages' bytes: / ${pageBytes.home}, ${PRODUCT} ${pageBytes.product}`);

  // The machine's state drifts and one run moves by more than the goals' margins: every row is
  // measured ROUNDS times, the rows taken in turns (the order reversed every other round), and
  // each row gives the median of its runs, figure by figure.
  const rows: [Omit<Row, keyof LoadRun>, Server, boolean][] = [[{ name: `trivial Worker (median of ${ROUNDS} runs)` }, trivial, false]];
  for (const path of ["/", PRODUCT]) {
    rows.push([{ name: `page floor: the cached ${path} bytes from memory (median of ${ROUNDS} runs)`, path, floor: "bare" }, floor, false]);
    rows.push([
      {
        name: `page floor behind the static-asset router, as the app is served: ${path} (median of ${ROUNDS} runs)`,
        path,
        floor: "routed",
      },
      routedFloor,
      false,
    ]);
  }
  rows.push([
    {
      name: `page floor behind the router, reading the page's data from D1 in one batch first: ${PRODUCT} (median of ${ROUNDS} runs)`,
      path: PRODUCT,
      floor: "reads",
    },
    readingFloor,
    false,
  ]);
  for (const path of ["/", PRODUCT]) {
    rows.push([{ name: `${path} cached`, path }, cached, false]);
    rows.push([{ name: `${path} uncached (rendered every request)`, path }, fresh, false]);
    rows.push([{ name: `${path} cache miss (render + cache write)`, path }, cached, true]);
  }
  const runs = await inTurns(rows, ROUNDS, async ([row, server, unique]) => {
    const measured = await measure(server, row.path ?? "/", unique);
    console.log(row.name, measured);
    return measured;
  });
  return rows.map(([row], i) => ({ ...row, ...medians(runs[i]!, ["rps", "p50", "p99", "cpu"]) }));
}

async function main() {
  execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  const state = mkdtempSync(join(tmpdir(), "bench-state-"));
  // The product page reads its status from D1: the schema must be there.
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state]);
  const floors: ReturnType<typeof serveFloor>[] = [];
  try {
    const cached = start(
      ["-c", "build/server/wrangler.json", "--persist-to", state, "--inspector-port", String(INSPECTOR_PORTS[0])],
      SERVER_PORTS[0]!,
    );
    await waitFor(`${cached.url}/`);

    // A first visit on a phone, measured first, while the app is the only server and no load has
    // run: the documents as the page cache serves them, what the browser downloads, and Lighthouse,
    // whose mobile throttling multiplies whatever the host's main thread is doing at the time.
    const firstLoad: FirstLoad[] = [];
    for (const page of ["/", PRODUCT]) {
      await fetch(cached.url + page).then((r) => r.text());
      firstLoad.push({ page, ...(await documentSizes(cached.url + page)), js: await pageJavaScript(cached.url + page) });
    }
    const audits = [];
    for (const page of ["/", PRODUCT]) audits.push({ page, ...(await audit(cached.url + page)) });

    const load = FIRST_LOAD_ONLY ? [] : await measureLoad(cached, state, floors);

    const results: Results = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd)`,
      load,
      firstLoad,
      lighthouse: audits,
    };
    // A first-load run lacks the load rows: it prints its table, and the published one stays whole.
    if (FIRST_LOAD_ONLY) console.log(`\n${table(results)}\n`);
    else publish("storefront", results, table(results));
    printGoals(renderGoals(results.load));
    printGoals(firstLoadGoals(results));
  } finally {
    // Their processes end before their state goes: a workerd still writing its cache as it stops
    // would leave the folder half removed.
    await stopAndWait(
      [...servers, ...floors].map(({ pid }) => pid),
      () => {
        for (const child of servers) child.kill("SIGTERM");
        for (const floor of floors) floor.stop();
      },
    );
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
