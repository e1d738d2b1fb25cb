// Start-up benchmark: builds the app and measures, in one run, what a cold start of the Worker
// costs (decision 107):
//   - the upload as wrangler counts it (`wrangler deploy --dry-run`: "Total Upload … / gzip");
//   - the modules a fresh workerd evaluates to answer its first licence check
//     (POST /api/v1/licences/validate) and its first cached page (/): the build's chunks the Worker's
//     V8 compiled, read over the DevTools protocol after that first answer, each counted with the
//     source modules its source map names and its bytes;
//   - the time from starting a fresh wrangler/workerd to that first answer, against the licence
//     floor, the page floor and the trivial Worker started the same way, several rounds in turns.
// Results go to bench/results/startup.json and into docs/performance.md between the startup bench markers.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import {
  buildApp,
  type Goal,
  inTurns,
  median,
  printGoals,
  publish,
  ratio,
  secret,
  seedLicenceFloor,
  serveApp,
  serveFloor,
  stopAndWait,
  wrangler,
} from "./shared.ts";

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 5);
// Overridable so that a second copy of the bench can run beside another on the same machine.
const PORTS = {
  app: Number(process.env.BENCH_STARTUP_PORT ?? 8881),
  inspector: Number(process.env.BENCH_STARTUP_INSPECTOR_PORT ?? 8882),
  floor: Number(process.env.BENCH_STARTUP_FLOOR_PORT ?? 8883),
  floorInspector: Number(process.env.BENCH_STARTUP_FLOOR_INSPECTOR_PORT ?? 8884),
};
const VALIDATE = "/api/v1/licences/validate";
const LICENCE_FLOOR = "bench/floors/licence-floor.wrangler.toml";
const PAGE_FLOOR = "bench/floors/page-floor.wrangler.toml";
// Written here from the app's own cached answer before the page floor starts; never committed.
const PAGE_FLOOR_FILES = {
  home: "bench/floors/page-floor.html",
  product: "bench/floors/page-floor.product.html",
  headers: "bench/floors/page-floor.json",
};
const HOP_HEADERS = ["connection", "keep-alive", "transfer-encoding", "content-length", "date"];
const GOALS = { uploadGzipKiB: 500, evaluatedShare: 1 / 3 };

/**
 * The same counts on the build before the entry loaded its parts on first use (decision 107;
 * unminified, as it was built then): its entry chunk and everything that chunk imported statically,
 * evaluated at every start whatever the request, and nothing more for a licence check or a cached page.
 */
const BEFORE_START = { chunks: 8, modules: 310, bytes: 1_707_258 };
const BEFORE = { uploadGzipKiB: 982.04, licence: BEFORE_START, page: BEFORE_START, whole: { chunks: 16, modules: 951, bytes: 4_256_658 } };

type Path = "licence" | "page";

interface Evaluated {
  chunks: number;
  /** Source modules in those chunks, from their source maps. */
  modules: number;
  bytes: number;
  files: string[];
}

interface Start {
  name: string;
  /** Milliseconds from starting wrangler to the first answer. */
  ms: number;
  evaluated?: Evaluated;
}

/** The licence check every start answers first: an unknown key, so no state but the migrated schema. */
const licenceCheck = (url: string) =>
  fetch(url + VALIDATE, {
    method: "POST",
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": "10.9.9.9" },
    body: JSON.stringify({ key: "BENCH-STARTUP-UNKNOWN", hwid: "BENCH-STARTUP-PC", nonce: `startup-${Date.now()}` }),
  });

const pageRequest = (url: string) => fetch(`${url}/`);

/** Answers `request`'s first answer and the milliseconds since `startedAt`, retrying while nothing listens. */
async function firstAnswer(request: () => Promise<Response>, startedAt: number, expect: (response: Response) => boolean) {
  for (let tries = 0; tries < 6000; tries++) {
    try {
      const response = await request();
      const ms = performance.now() - startedAt;
      if (!expect(response)) throw new Error(`the first answer was ${response.status}: ${(await response.text()).slice(0, 200)}`);
      await response.arrayBuffer();
      return ms;
    } catch (error) {
      if (error instanceof Error && error.message.startsWith("the first answer")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  throw new Error("no answer within a minute");
}

/** Source modules per chunk of the server build, from each chunk's source map. */
function sourceModules(file: string): number {
  const map = `${file}.map`;
  if (!existsSync(map)) return 1;
  return (JSON.parse(readFileSync(map, "utf8")) as { sources: string[] }).sources.length;
}

/**
 * The build's chunks the Worker's V8 has compiled so far, read over the DevTools protocol from
 * wrangler's inspector: every script it announces when the debugger is enabled.
 */
async function evaluatedChunks(inspectorPort: number): Promise<Evaluated> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  const urls = new Set<string>();
  await new Promise<void>((resolve, reject) => {
    socket.on("open", () => socket.send(JSON.stringify({ id: 1, method: "Debugger.enable" })));
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as { id?: number; method?: string; params?: { url: string } };
      if (message.method === "Debugger.scriptParsed" && message.params?.url) urls.add(message.params.url);
      if (message.id === 1) resolve();
    });
    socket.on("error", reject);
  });
  socket.close();
  const chunks = serverChunks();
  const files = chunks.filter((file) => [...urls].some((url) => url.endsWith(`/${file}`) || url === file));
  return {
    chunks: files.length,
    modules: files.reduce((sum, file) => sum + sourceModules(join("build/server", file)), 0),
    bytes: files.reduce((sum, file) => sum + statSync(join("build/server", file)).size, 0),
    files,
  };
}

/** The server build's JavaScript chunks, relative to build/server. */
const serverChunks = () => [
  "index.js",
  ...readdirSync("build/server/assets")
    .filter((f) => f.endsWith(".js"))
    .map((f) => `assets/${f}`),
];

/** Every chunk of the Worker and its source modules: what a start evaluated before (all of it at most). */
function wholeWorker(): Evaluated {
  const files = serverChunks();
  return {
    chunks: files.length,
    modules: files.reduce((sum, file) => sum + sourceModules(join("build/server", file)), 0),
    bytes: files.reduce((sum, file) => sum + statSync(join("build/server", file)).size, 0),
    files,
  };
}

/** The upload as `wrangler deploy` would send it, in KiB: total and gzip. */
function uploadSize(): { totalKiB: number; gzipKiB: number } {
  const outdir = mkdtempSync(join(tmpdir(), "bench-startup-upload-"));
  const printed = execFileSync("wrangler", ["deploy", "--dry-run", "--outdir", outdir], {
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  rmSync(outdir, { recursive: true, force: true });
  const match = printed.match(/Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/);
  if (!match) throw new Error(`wrangler printed no upload size:\n${printed}`);
  return { totalKiB: Number(match[1]), gzipKiB: Number(match[2]) };
}

/** The app's cached home page, written for the page floor to answer from memory. */
async function capturePage(url: string) {
  const response = await pageRequest(url);
  const body = Buffer.from(await response.arrayBuffer());
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !HOP_HEADERS.includes(name)));
  writeFileSync(PAGE_FLOOR_FILES.home, body);
  writeFileSync(PAGE_FLOOR_FILES.product, body);
  writeFileSync(PAGE_FLOOR_FILES.headers, JSON.stringify({ productPath: "/product", home: headers, product: headers }));
}

async function main() {
  const state = await buildApp("startup", Object.values(PORTS));
  const upload = uploadSize();
  const whole = wholeWorker();
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state]);
  seedLicenceFloor(state, LICENCE_FLOOR, []);

  // One start to store / in the local Cache API (persisted with the state), as a deployed shop's
  // location holds it; every later start serves it from there without rendering.
  const warm = serveApp(state, { port: PORTS.app, inspector: PORTS.inspector });
  await firstAnswer(
    () => pageRequest(warm.url),
    performance.now(),
    (response) => response.ok,
  );
  await capturePage(warm.url);
  await stopAndWait([warm.pid], warm.stop);

  const app = (path: Path) => async (): Promise<Start> => {
    const startedAt = performance.now();
    const served = serveApp(state, { port: PORTS.app, inspector: PORTS.inspector });
    try {
      const ms =
        path === "licence"
          ? await firstAnswer(
              () => licenceCheck(served.url),
              startedAt,
              (response) => response.status === 200,
            )
          : await firstAnswer(
              () => pageRequest(served.url),
              startedAt,
              (response) => response.ok,
            );
      return { name: path, ms, evaluated: await evaluatedChunks(PORTS.inspector) };
    } finally {
      await stopAndWait([served.pid], served.stop);
    }
  };
  const floor =
    (name: string, config: string, request: (url: string) => Promise<Response>, vars?: Record<string, string>) =>
    async (): Promise<Start> => {
      const startedAt = performance.now();
      const served = serveFloor({ config, port: PORTS.floor, inspector: PORTS.floorInspector, vars, state });
      try {
        return {
          name,
          ms: await firstAnswer(
            () => request(served.url),
            startedAt,
            (response) => response.status < 500,
          ),
        };
      } finally {
        await stopAndWait([served.pid], served.stop);
      }
    };
  const items = [
    { label: `the app: first answer a licence check (${VALIDATE})`, run: app("licence") },
    {
      label: "licence floor: first licence check",
      run: floor("licence floor", LICENCE_FLOOR, licenceCheck, { SIGNING_KEY: secret("LICENCE_SIGNING_KEY") }),
    },
    { label: "the app: first answer the cached page (/)", run: app("page") },
    { label: "page floor: first page", run: floor("page floor", PAGE_FLOOR, pageRequest) },
    { label: "trivial Worker: first answer", run: floor("trivial", "bench/trivial.wrangler.toml", pageRequest) },
  ];
  const runs = await inTurns(items, ROUNDS, (item) => item.run());
  rmSync(state, { recursive: true, force: true });

  const startMs = runs.map((starts) => median(starts.map((start) => start.ms)));
  const [licenceMs, licenceFloorMs, pageMs, pageFloorMs, trivialMs] = startMs as [number, number, number, number, number];
  // What a start evaluates does not change from round to round; the first round's is reported.
  const evaluated: Record<Path, Evaluated> = { licence: runs[0]![0]!.evaluated!, page: runs[2]![0]!.evaluated! };

  const share = (path: Path) => ratio(evaluated[path].bytes, BEFORE[path].bytes);
  const goals: Record<string, Goal> = {
    upload: {
      target: `≤ ${GOALS.uploadGzipKiB} KiB gzip`,
      value: `${upload.gzipKiB} KiB gzip`,
      pass: upload.gzipKiB <= GOALS.uploadGzipKiB,
    },
    "evaluated for a licence check": {
      target: "≤ a third of the bytes before",
      value: `${share("licence")}× (${kib(evaluated.licence.bytes)} against ${kib(BEFORE.licence.bytes)})`,
      pass: evaluated.licence.bytes <= BEFORE.licence.bytes * GOALS.evaluatedShare,
    },
    "evaluated for a cached page": {
      target: "≤ a third of the bytes before",
      value: `${share("page")}× (${kib(evaluated.page.bytes)} against ${kib(BEFORE.page.bytes)})`,
      pass: evaluated.page.bytes <= BEFORE.page.bytes * GOALS.evaluatedShare,
    },
    // The same goal counted in source modules: drizzle and Hono are many small ones.
    "source modules evaluated for a licence check": {
      target: "≤ a third of the modules before",
      value: `${ratio(evaluated.licence.modules, BEFORE.licence.modules)}× (${evaluated.licence.modules} against ${BEFORE.licence.modules})`,
      pass: evaluated.licence.modules <= BEFORE.licence.modules * GOALS.evaluatedShare,
    },
    "source modules evaluated for a cached page": {
      target: "≤ a third of the modules before",
      value: `${ratio(evaluated.page.modules, BEFORE.page.modules)}× (${evaluated.page.modules} against ${BEFORE.page.modules})`,
      pass: evaluated.page.modules <= BEFORE.page.modules * GOALS.evaluatedShare,
    },
  };
  printGoals(goals);

  const verdict = (goal: Goal) => `${goal.pass ? "pass" : "**fail**"} (${goal.value})`;
  const evaluatedRow = (label: string, now: Evaluated, before: { chunks: number; modules: number; bytes: number }) =>
    `| ${label} | ${before.chunks} | ${before.modules} | ${kib(before.bytes)} | ${now.chunks} | ${now.modules} | ${kib(now.bytes)} | ${ratio(now.bytes, before.bytes)}× |`;
  const startRow = (label: string, ms: number, floorMs?: number) =>
    `| ${label} (median of ${ROUNDS}) | ${Math.round(ms)} | ${ratio(ms, trivialMs)}× | ${floorMs ? `${ratio(ms, floorMs)}×` : ""} |`;
  const markdown = [
    "| what a cold start evaluates | chunks before | modules before | bytes before | chunks | modules | bytes | bytes vs before |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    evaluatedRow(`first licence check (${VALIDATE})`, evaluated.licence, BEFORE.licence),
    evaluatedRow("first cached page (/)", evaluated.page, BEFORE.page),
    evaluatedRow("the whole Worker (every chunk)", whole, BEFORE.whole),
    "",
    `Upload (\`wrangler deploy --dry-run\`): ${upload.totalKiB} KiB, ${upload.gzipKiB} KiB gzip${BEFORE.uploadGzipKiB ? ` (before: ${BEFORE.uploadGzipKiB} KiB gzip)` : ""}.`,
    "",
    "| from starting wrangler dev to the first answer | ms | vs trivial | vs its floor |",
    "|---|---:|---:|---:|",
    startRow("trivial Worker", trivialMs),
    startRow("licence floor: a licence check", licenceFloorMs, licenceFloorMs),
    startRow(`the app: a licence check (${VALIDATE})`, licenceMs, licenceFloorMs),
    startRow("page floor: /", pageFloorMs, pageFloorMs),
    startRow("the app: the cached / (from the Cache API)", pageMs, pageFloorMs),
    "",
    `Goals: upload ≤ ${GOALS.uploadGzipKiB} KiB gzip: ${verdict(goals.upload!)}; a licence check's start evaluates ≤ a third of the bytes before: ${verdict(goals["evaluated for a licence check"]!)}; a cached page's: ${verdict(goals["evaluated for a cached page"]!)}; counted in source modules, a licence check: ${verdict(goals["source modules evaluated for a licence check"]!)}, a cached page: ${verdict(goals["source modules evaluated for a cached page"]!)}.`,
    "",
    `Measured ${new Date().toISOString().slice(0, 10)}: ${ROUNDS} starts of each, taken in turns, each a fresh wrangler dev (local workerd) on the production build; modules and bytes read from the Worker's V8 over the DevTools protocol after its first answer; ${cpus().length} CPU cores, Node ${process.version}.`,
  ].join("\n");
  publish(
    "startup",
    { date: new Date().toISOString(), upload, whole: { ...whole, files: undefined }, evaluated, before: BEFORE, runs },
    markdown,
  );
}

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
