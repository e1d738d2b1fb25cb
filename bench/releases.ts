// A 1 GiB release through the local Worker: builds the app, serves the production build with
// wrangler's local workerd, signs in as an admin (a session row in the local D1), uploads the file
// through the Releases page's multipart endpoints in its real 8 MiB parts (generated part by part:
// the bench never holds the file either), publishes it, then downloads it whole and again with a
// Range resume from the middle, checking the SHA-256 end to end. Then the same file goes through
// the release floor (bench/floors/release-floor.js: R2 multipart, the streamed hash and a streamed
// download, nothing else) on the same runtime. Meanwhile it samples the memory (VmRSS, and VmHWM
// at the end) of each Worker's workerd processes; locally those also run the R2 simulator, so the
// goal is the app's growth beyond the floor's: never more than a few parts (decision 056).
// Writes bench/results/releases.json and docs/performance.md between the releases bench markers; removes
// the local D1 and R2 (the 1 GiB objects) afterwards.
import { createHash, randomBytes } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { adminSession, buildApp, publish, seedD1, serveApp, serveFloor } from "./shared.ts";

const PART = 8 * 1024 ** 2;
const PARTS = Number(process.env.BENCH_RELEASE_PARTS ?? 128);
const SIZE = PART * PARTS;
const GOAL_PARTS = 4;
const APP_PORT = 8860;
const INSPECTOR_PORT = 8861;
const FLOOR_PORT = 8862;
const FLOOR_INSPECTOR_PORT = 8863;
const SAMPLE_MS = 50;
const MiB = 1024 ** 2;

/** Part n of the file: one random 8 MiB block with the part's number written into its start. */
const block = randomBytes(PART);
function part(n: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(block);
  new DataView(bytes.buffer).setUint32(0, n);
  return bytes;
}

/** The workerd processes under `root` (wrangler's node, then workerd): the app's own, no other. */
function workerdUnder(root: number): number[] {
  const parent = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
      parent.set(Number(entry), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const descends = (pid: number): boolean => pid === root || (pid > 1 && parent.has(pid) && descends(parent.get(pid)!));
  return [...names].filter(([pid, name]) => name === "workerd" && descends(pid)).map(([pid]) => pid);
}

function memoryOf(pids: number[]): { rss: number; hwm: number } {
  let rss = 0;
  let hwm = 0;
  for (const pid of pids) {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    rss += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    hwm += Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  }
  return { rss, hwm };
}

/** Samples the processes' resident memory until stopped: each phase's peak. */
function sampler(pids: number[]) {
  let phase = "idle";
  const peaks: Record<string, number> = {};
  const timer = setInterval(() => {
    peaks[phase] = Math.max(peaks[phase] ?? 0, memoryOf(pids).rss);
  }, SAMPLE_MS);
  return {
    phase: (name: string) => {
      phase = name;
      console.log(`${new Date().toISOString().slice(11, 19)} ${name}`);
    },
    stop: () => {
      clearInterval(timer);
      return peaks;
    },
  };
}

async function hashBody(response: Response, hash: ReturnType<typeof createHash>, limit = Infinity): Promise<number> {
  let read = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const take = Math.min(value.byteLength, limit - read);
    hash.update(value.subarray(0, take));
    read += take;
    if (read >= limit) {
      // A connection dropped halfway: the rest is never read.
      await reader.cancel();
      break;
    }
  }
  return read;
}

/** What the bench sends the file through: the app's Releases endpoints, or the release floor's. */
interface Target {
  /** The workerd processes serving it. */
  pids: number[];
  start(): Promise<void>;
  put(n: number, bytes: Uint8Array<ArrayBuffer>): Promise<void>;
  /** Joins the parts; the SHA-256 the Worker computed of the object. */
  finish(): Promise<string>;
  download: { url: string; headers: Record<string, string> };
}

interface Phase {
  name: string;
  peakMiB: number;
  aboveIdleMiB: number;
}

const inParts = (bytes: number) => Math.round((bytes / PART) * 100) / 100;
const peakAboveIdle = (run: { phases: Phase[] }) => Math.max(...run.phases.map((p) => p.aboveIdleMiB));

/** Uploads, joins and downloads the file (whole, then resumed) through `target`, sampling its memory. */
async function measure(target: Target) {
  const idle = memoryOf(target.pids).rss;
  const samples = sampler(target.pids);
  samples.phase("upload");
  let started = performance.now();
  await target.start();
  const uploaded = createHash("sha256");
  for (let n = 1; n <= PARTS; n++) {
    const bytes = part(n);
    uploaded.update(bytes);
    await target.put(n, bytes);
  }
  samples.phase("finish (R2 joins the parts, the Worker hashes the object)");
  const sha256 = uploaded.digest("hex");
  const joined = await target.finish();
  const uploadMs = performance.now() - started;
  if (joined !== sha256) throw new Error(`finish: the Worker's SHA-256 ${joined}, expected ${sha256}`);

  samples.phase("download");
  const { url, headers } = target.download;
  started = performance.now();
  const whole = await fetch(url, { headers });
  const downloaded = createHash("sha256");
  const wholeBytes = await hashBody(whole, downloaded);
  const downloadMs = performance.now() - started;
  if (wholeBytes !== SIZE || downloaded.digest("hex") !== sha256) throw new Error("the whole download does not match");

  samples.phase("download resumed with Range");
  const cut = Math.floor(SIZE * 0.4);
  const resumed = createHash("sha256");
  const first = await hashBody(await fetch(url, { headers }), resumed, cut);
  const rest = await fetch(url, { headers: { ...headers, Range: `bytes=${first}-` } });
  if (rest.status !== 206 || rest.headers.get("Content-Range") !== `bytes ${first}-${SIZE - 1}/${SIZE}`)
    throw new Error(`range: ${rest.status} ${rest.headers.get("Content-Range")}`);
  const second = await hashBody(rest, resumed);
  if (first + second !== SIZE || resumed.digest("hex") !== sha256) throw new Error("the resumed download does not match");

  const peaks = samples.stop();
  const phases: Phase[] = Object.entries(peaks)
    .filter(([name]) => name !== "idle")
    .map(([name, rss]) => ({ name, peakMiB: Math.round(rss / MiB), aboveIdleMiB: (rss - idle) / MiB }));
  return {
    idleMiB: Math.round(idle / MiB),
    phases,
    hwmMiB: Math.round(memoryOf(target.pids).hwm / MiB),
    uploadMiBps: Math.round(SIZE / MiB / (uploadMs / 1000)),
    downloadMiBps: Math.round(SIZE / MiB / (downloadMs / 1000)),
    sha256,
  };
}

/** The app's Releases page endpoints, as the browser's uploader calls them, as a signed-in admin. */
function appTarget(base: string, cookie: string, pids: number[]): Target {
  const headers = { Cookie: cookie, Origin: base, Accept: "application/json" };
  const download = { url: "", headers: { Cookie: cookie } };
  let id = "";
  return {
    pids,
    async start() {
      const response = await fetch(`${base}/dashboard/releases/uploads`, {
        method: "POST",
        headers,
        body: new URLSearchParams({
          intent: "start",
          product: "Vertex Rust",
          version: `9.${Date.now() % 1000}.0`,
          channel: "stable",
          notes: "Bench",
          entitlement: "",
          fileName: "bench.bin",
          size: String(SIZE),
          contentType: "application/octet-stream",
        }),
      });
      const started = (await response.json()) as { ok: boolean; value: { id: string; partBytes: number } };
      if (!started.ok || started.value.partBytes !== PART) throw new Error(`start: ${JSON.stringify(started)}`);
      id = started.value.id;
    },
    async put(n, bytes) {
      const response = await fetch(`${base}/dashboard/releases/uploads/${id}?part=${n}`, { method: "PUT", headers, body: bytes });
      if (response.status !== 200) throw new Error(`part ${n}: ${response.status} ${await response.text()}`);
    },
    async finish() {
      const finished = (await (await fetch(`${base}/dashboard/releases/uploads/${id}`, { method: "POST", headers })).json()) as {
        ok: boolean;
        value: { sha256: string };
      };
      if (!finished.ok) throw new Error(`finish: ${JSON.stringify(finished)}`);
      const published = await fetch(`${base}/dashboard/releases`, {
        method: "POST",
        headers: { ...headers, Accept: "*/*" },
        body: new URLSearchParams({ intent: "publish", releaseId: id }),
      });
      if (published.status !== 200) throw new Error(`publish: ${published.status}`);
      download.url = `${base}/dashboard/downloads/releases/${id}`;
      // Members see the checksum before they download: HEAD answers it without the body.
      const head = await fetch(download.url, { method: "HEAD", headers: download.headers });
      if (head.headers.get("X-Checksum-SHA256") !== finished.value.sha256)
        throw new Error(`HEAD: ${head.status} ${head.headers.get("X-Checksum-SHA256")}`);
      return finished.value.sha256;
    },
    download,
  };
}

/** The release floor (bench/floors/release-floor.js): the same parts, with no session or records. */
function floorTarget(base: string, pids: number[]): Target {
  let uploadId = "";
  const parts: { partNumber: number; etag: string }[] = [];
  return {
    pids,
    async start() {
      uploadId = ((await (await fetch(`${base}/start`, { method: "POST" })).json()) as { uploadId: string }).uploadId;
    },
    async put(n, bytes) {
      const response = await fetch(`${base}/part?uploadId=${encodeURIComponent(uploadId)}&part=${n}`, { method: "PUT", body: bytes });
      if (response.status !== 200) throw new Error(`floor part ${n}: ${response.status}`);
      parts.push((await response.json()) as { partNumber: number; etag: string });
    },
    async finish() {
      const response = await fetch(`${base}/finish?uploadId=${encodeURIComponent(uploadId)}`, {
        method: "POST",
        body: JSON.stringify(parts),
      });
      return ((await response.json()) as { sha256: string }).sha256;
    },
    download: { url: `${base}/file`, headers: {} },
  };
}

async function main() {
  const state = await buildApp("releases", [APP_PORT, INSPECTOR_PORT, FLOOR_PORT, FLOOR_INSPECTOR_PORT]);
  const { statements, cookie } = adminSession(Date.now(), 1);
  seedD1(state, "seed", statements);
  const app = serveApp(state, { port: APP_PORT, inspector: INSPECTOR_PORT });
  const floor = serveFloor({
    config: "bench/floors/release-floor.wrangler.toml",
    port: FLOOR_PORT,
    inspector: FLOOR_INSPECTOR_PORT,
    state: join(state, "floor"),
  });
  const base = app.url;
  try {
    await Promise.all([app.ready(), floor.ready()]);
    // Warm: the Releases page once, so its first use is not in the figures.
    if ((await fetch(`${base}/dashboard/releases`, { headers: { Cookie: cookie } })).status !== 200)
      throw new Error("the admin session was not accepted");
    await new Promise((r) => setTimeout(r, 2000));
    const appPids = workerdUnder(app.pid!);
    const floorPids = workerdUnder(floor.pid!);
    if (appPids.length === 0 || floorPids.length === 0) throw new Error("no workerd process found under wrangler");

    console.log("through the app");
    const viaApp = await measure(appTarget(base, cookie, appPids));
    console.log("through the release floor");
    const viaFloor = await measure(floorTarget(floor.url, floorPids));

    const results = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd, local R2)`,
      size: SIZE,
      partBytes: PART,
      app: viaApp,
      floor: viaFloor,
      goal: `the app's peak above idle over the run at most ${GOAL_PARTS} parts beyond the floor's`,
      beyondFloorParts: inParts((peakAboveIdle(viaApp) - peakAboveIdle(viaFloor)) * MiB),
    };
    const pass = results.beyondFloorParts <= GOAL_PARTS;
    const mib = (value: number) => `${Math.round(value)} MiB`;
    const rows = viaApp.phases.map((p, i) => {
      const f = viaFloor.phases[i]!;
      return `| ${p.name} | ${mib(p.peakMiB)} | ${mib(p.aboveIdleMiB)} | ${mib(f.peakMiB)} | ${mib(f.aboveIdleMiB)} | ${inParts((p.aboveIdleMiB - f.aboveIdleMiB) * MiB)} |`;
    });
    const markdown = [
      `| ${SIZE / MiB} MiB release: peak of each phase | app's workerd | above idle | floor's workerd | above idle | app beyond the floor, in 8 MiB parts |`,
      "|---|---:|---:|---:|---:|---:|",
      `| idle (after start-up) | ${mib(viaApp.idleMiB)} | | ${mib(viaFloor.idleMiB)} | | |`,
      ...rows,
      "",
      `Upload (${PARTS} parts of 8 MiB, one at a time, then the join and the streamed SHA-256): app ${viaApp.uploadMiBps} MiB/s, floor ${viaFloor.uploadMiBps} MiB/s; download: app ${viaApp.downloadMiBps} MiB/s, floor ${viaFloor.downloadMiBps} MiB/s; through both, the whole download and the one resumed with \`Range\` at 40 % hash to the uploaded file's SHA-256. Peak above idle over the whole run: app ${mib(peakAboveIdle(viaApp))}, floor ${mib(peakAboveIdle(viaFloor))}. Goal: the app's peak at most ${GOAL_PARTS} parts beyond the floor's — ${pass ? "met" : "**missed**"} (${results.beyondFloorParts} parts). A single phase's difference moves by several parts from run to run with when each process collects its garbage. High-water marks (VmHWM, start-up included): app ${viaApp.hwmMiB} MiB, floor ${viaFloor.hwmMiB} MiB.`,
      "",
      `Measured ${results.date}, resident memory sampled every ${SAMPLE_MS} ms from /proc of the workerd processes wrangler starts for each Worker (its proxy and the runtime, which also runs the local R2), summed; ${results.machine}.`,
    ].join("\n");
    publish("releases", results, markdown);
    if (!pass) process.exitCode = 1;
  } finally {
    app.stop();
    floor.stop();
    // The local D1 and both R2 copies of the file.
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
