// A 1 GiB release through the local Worker: builds the app, serves the production build with
// wrangler's local workerd, signs in as an admin (a session row in the local D1), uploads the file
// through the Releases page's multipart endpoints in its real 8 MiB parts (generated part by part:
// the bench never holds the file either), publishes it, then downloads it whole and again with a
// Range resume from the middle, checking the SHA-256 end to end. Meanwhile it samples the memory
// (VmRSS, and VmHWM at the end) of the app's workerd processes (wrangler's proxy and the runtime), and reports the peak above the idle
// baseline in parts, and the throughput. Goal: the peak never more than a few parts (decision 056).
// Writes bench/results/releases.json and the README between the releases bench markers; removes
// the local D1 and R2 (the 1 GiB object) afterwards.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { assertFree, publish, waitFor, wrangler, wranglerDev } from "./shared.ts";

const PART = 8 * 1024 ** 2;
const PARTS = Number(process.env.BENCH_RELEASE_PARTS ?? 128);
const SIZE = PART * PARTS;
const GOAL_PARTS = 4;
const APP_PORT = 8860;
const INSPECTOR_PORT = 8861;
const SAMPLE_MS = 50;
const DAY = 86_400_000;
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

/** Samples the workerd processes' resident memory until stopped; the peak and where it happened. */
function sampler(pids: number[]) {
  let phase = "idle";
  const peaks: Record<string, number> = {};
  const timer = setInterval(() => {
    const { rss } = memoryOf(pids);
    peaks[phase] = Math.max(peaks[phase] ?? 0, rss);
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

async function main() {
  execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  for (const port of [APP_PORT, INSPECTOR_PORT]) await assertFree(port);
  const state = mkdtempSync(join(tmpdir(), "bench-releases-"));
  const token = randomBytes(32).toString("base64url");
  const cookie = `__Host-session=${token}`;
  const now = Date.now();
  const seed = join(state, "seed.sql");
  writeFileSync(
    seed,
    [
      `insert into users (id, email, password_hash, email_verified_at, created_at) values ('bench-admin', 'admin@bench.test', null, ${now}, ${now});`,
      `insert into profiles (id, username, created_at) values ('bench-admin', 'benchadmin', ${now});`,
      `insert into user_roles (user_id, role) values ('bench-admin', 'admin');`,
      `insert into sessions (id, public_id, user_id, created_at, last_seen_at, expires_at) values ('${createHash("sha256").update(token).digest("hex")}', 'bench-session', 'bench-admin', ${now}, ${now}, ${now + DAY});`,
    ].join("\n"),
  );
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state]);
  wrangler(["d1", "execute", "DB", "--local", "--persist-to", state, "--file", seed]);

  const app = wranglerDev(["-c", "build/server/wrangler.json", "--persist-to", state, "--inspector-port", String(INSPECTOR_PORT)], APP_PORT);
  const base = `http://127.0.0.1:${APP_PORT}`;
  const headers = { Cookie: cookie, Origin: base, Accept: "application/json" };
  try {
    await waitFor(`${base}/robots.txt`);
    // Warm: the Releases page and the upload route once, so their first use is not in the figures.
    if ((await fetch(`${base}/dashboard/releases`, { headers: { Cookie: cookie } })).status !== 200) throw new Error("the admin session was not accepted");
    await new Promise((r) => setTimeout(r, 2000));
    const pids = workerdUnder(app.pid!);
    if (pids.length === 0) throw new Error("no workerd process found under wrangler");
    const idle = memoryOf(pids).rss;
    const samples = sampler(pids);

    samples.phase("upload");
    let started = performance.now();
    const start = await fetch(`${base}/dashboard/releases/uploads`, {
      method: "POST",
      headers,
      body: new URLSearchParams({ intent: "start", version: `9.${now % 1000}.0`, channel: "stable", notes: "Bench", entitlement: "", fileName: "bench.bin", size: String(SIZE), contentType: "application/octet-stream" }),
    });
    const started_ = (await start.json()) as { ok: boolean; value: { id: string; partBytes: number } };
    if (!started_.ok || started_.value.partBytes !== PART) throw new Error(`start: ${JSON.stringify(started_)}`);
    const id = started_.value.id;
    const uploaded = createHash("sha256");
    for (let n = 1; n <= PARTS; n++) {
      const bytes = part(n);
      uploaded.update(bytes);
      const response = await fetch(`${base}/dashboard/releases/uploads/${id}?part=${n}`, { method: "PUT", headers, body: bytes });
      if (response.status !== 200) throw new Error(`part ${n}: ${response.status} ${await response.text()}`);
    }
    samples.phase("finish (R2 joins the parts, the Worker hashes the object)");
    const finished = (await (await fetch(`${base}/dashboard/releases/uploads/${id}`, { method: "POST", headers })).json()) as { ok: boolean; value: { sha256: string } };
    const uploadMs = performance.now() - started;
    const sha256 = uploaded.digest("hex");
    if (!finished.ok || finished.value.sha256 !== sha256) throw new Error(`finish: ${JSON.stringify(finished)} (expected ${sha256})`);
    const published = await fetch(`${base}/dashboard/releases`, { method: "POST", headers: { ...headers, Accept: "*/*" }, body: new URLSearchParams({ intent: "publish", releaseId: id }) });
    if (published.status !== 200) throw new Error(`publish: ${published.status}`);

    samples.phase("download");
    const url = `${base}/dashboard/downloads/releases/${id}`;
    started = performance.now();
    const whole = await fetch(url, { headers: { Cookie: cookie } });
    const downloaded = createHash("sha256");
    const wholeBytes = await hashBody(whole, downloaded);
    const downloadMs = performance.now() - started;
    const checksumHeader = whole.headers.get("X-Checksum-SHA256");
    if (wholeBytes !== SIZE || downloaded.digest("hex") !== sha256 || checksumHeader !== sha256) throw new Error("the whole download does not match");

    samples.phase("download resumed with Range");
    const cut = Math.floor(SIZE * 0.4);
    const resumed = createHash("sha256");
    const first = await hashBody(await fetch(url, { headers: { Cookie: cookie } }), resumed, cut);
    const rest = await fetch(url, { headers: { Cookie: cookie, Range: `bytes=${first}-` } });
    if (rest.status !== 206 || rest.headers.get("Content-Range") !== `bytes ${first}-${SIZE - 1}/${SIZE}`) throw new Error(`range: ${rest.status} ${rest.headers.get("Content-Range")}`);
    const second = await hashBody(rest, resumed);
    if (first + second !== SIZE || resumed.digest("hex") !== sha256) throw new Error("the resumed download does not match");

    const peaks = samples.stop();
    const { hwm } = memoryOf(pids);
    const inParts = (bytes: number) => Math.round((bytes / PART) * 100) / 100;
    const phases = Object.entries(peaks)
      .filter(([name]) => name !== "idle")
      .map(([name, rss]) => ({ name, peakMiB: Math.round(rss / MiB), aboveIdleMiB: Math.round((rss - idle) / MiB), aboveIdleParts: inParts(rss - idle) }));
    const worst = Math.max(...phases.map((p) => p.aboveIdleParts));
    const results = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd, local R2)`,
      size: SIZE,
      partBytes: PART,
      idleMiB: Math.round(idle / MiB),
      phases,
      hwmMiB: Math.round(hwm / MiB),
      uploadMiBps: Math.round(SIZE / MiB / (uploadMs / 1000)),
      downloadMiBps: Math.round(SIZE / MiB / (downloadMs / 1000)),
      sha256,
      goal: `peak above idle <= ${GOAL_PARTS} parts`,
      pass: worst <= GOAL_PARTS,
    };
    const markdown = [
      `| ${SIZE / MiB} MiB release through the local Worker | workerd resident peak | above idle | in 8 MiB parts |`,
      "|---|---:|---:|---:|",
      `| idle (after start-up and one page) | ${results.idleMiB} MiB | | |`,
      ...phases.map((p) => `| ${p.name} | ${p.peakMiB} MiB | ${p.aboveIdleMiB} MiB | ${p.aboveIdleParts} |`),
      "",
      `Upload (${PARTS} parts of 8 MiB, one at a time, then the join and the streamed SHA-256): ${results.uploadMiBps} MiB/s; download: ${results.downloadMiBps} MiB/s; the whole download and the one resumed with \`Range\` at 40 % both hash to the uploaded file's SHA-256. Goal: the peak above idle never more than ${GOAL_PARTS} parts — ${results.pass ? "met" : "**missed**"}. workerd's high-water mark (VmHWM, start-up included): ${results.hwmMiB} MiB.`,
      "",
      `Measured ${results.date}, memory sampled every ${SAMPLE_MS} ms from /proc of the two workerd processes wrangler starts for the app (its proxy and the runtime), summed; ${results.machine}.`,
    ].join("\n");
    publish("releases", results, markdown);
    if (!results.pass) process.exitCode = 1;
  } finally {
    app.kill("SIGTERM");
    // The local D1 and R2, with the 1 GiB object.
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
