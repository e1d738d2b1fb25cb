// Chat room under load (decision 095): the production build's room against the chat floor
// (bench/floors/chat-floor.js: a Durable Object that only stores and broadcasts), both served by
// wrangler's local workerd in the same run, in turns (app, floor, floor, app). For each:
//   1. a member scrolls back through 5,000 messages, a page of 50 at a time (history page time);
//   2. 1,000 sockets join one room, and single messages go to all of them (fan-out of one message);
//   3. 50 messages a second, each from another of the 1,000, for BENCH_SECONDS (fan-out under load).
// Latency is from send to arrival at each socket (sender included). The figures are p95s and
// their ratios against the floor's (samples of both rounds pooled), and the CPU per message of the
// workerd running the Worker (and of all wrangler's processes); they land in docs/performance.md
// between the chat-room bench markers.
import { randomBytes, randomUUID, createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import {
  buildApp,
  cpuSeconds,
  inTurns,
  percentile,
  publish,
  ratio,
  runsTheWorker,
  seedD1,
  serveApp,
  serveFloor,
  stopAndWait,
} from "./shared.ts";

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const LOAD_SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const SINGLE_MESSAGES = 20;
const HISTORY = Number(process.env.BENCH_HISTORY ?? 5000);
const SCROLLS = 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const APP_PORT = 4191;
const FLOOR_PORT = 4192;
const ROOM = "general";
const HISTORY_ROOM = "bench-history";
/** The app's flood limit: five messages per member per ten seconds. The history is seeded within it. */
const PER_MEMBER = 5;

interface Member {
  id: string;
  token: string;
}

/** A way into a room, and what a room answers on joining: the app sends its history, the floor nothing. */
interface Target {
  name: "app" | "floor";
  url: (room: string, member: number) => string;
  headers: (member: number) => Record<string, string>;
  /** CPU seconds so far: of all wrangler's processes for it, and of the workerd that runs the Worker (and its room) alone. */
  cpu: () => { all: number; worker: number };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function seedMembers(state: string): Member[] {
  const now = Date.now();
  const members = Array.from({ length: SOCKETS }, () => ({ id: randomUUID(), token: randomBytes(32).toString("base64url") }));
  const statements = members.flatMap((m, i) => [
    `insert into users (id, email, password_hash, email_verified_at, created_at) values ('${m.id}', 'bench${i}@example.test', null, ${now}, ${now});`,
    `insert into profiles (id, username, created_at) values ('${m.id}', 'bench${i}', ${now});`,
    `insert into sessions (id, public_id, user_id, created_at, last_seen_at, expires_at) values ('${createHash("sha256").update(m.token).digest("hex")}', 'bench-session-${i}', '${m.id}', ${now}, ${now}, ${now + 86_400_000});`,
  ]);
  statements.push(`insert into chat_rooms (slug, name, kind, created_at) values ('${HISTORY_ROOM}', 'Bench history', 'open', ${now});`);
  seedD1(state, "chat", statements);
  return members;
}

/** Opens a socket and resolves once it is open (and, for the app, once the room's history arrived). */
function open(target: Target, room: string, member: number, onMessage?: (data: string) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(target.url(room, member), { headers: target.headers(member), perMessageDeflate: false });
    let ready = false;
    socket.on("error", reject);
    socket.on("open", () => {
      if (target.name === "floor") {
        ready = true;
        resolve(socket);
      }
    });
    socket.on("message", (raw) => {
      const data = String(raw);
      if (!ready && data.startsWith('{"type":"history"')) {
        ready = true;
        resolve(socket);
      }
      onMessage?.(data);
    });
  });
}

/** The frame a socket answers for `content`'s message: the message frames of both rooms carry it as the content. */
const MARK = '"content":"bench ';

/** 5,000 messages in the history room: the app's within its flood limit (each member five, in a burst), the floor's from one socket. */
async function seedHistory(target: Target) {
  if (target.name === "floor") {
    let echoed = 0;
    const socket = await open(target, HISTORY_ROOM, 0, (data) => data.includes(MARK) && echoed++);
    for (let i = 0; i < HISTORY; i++) socket.send(JSON.stringify({ type: "send", content: `bench history ${i}` }));
    while (echoed < HISTORY) await wait(50);
    socket.close();
    return;
  }
  const writers = Math.ceil(HISTORY / PER_MEMBER);
  const concurrent = 20;
  for (let from = 0; from < writers; from += concurrent) {
    await Promise.all(
      Array.from({ length: Math.min(concurrent, writers - from) }, async (_, k) => {
        const member = (from + k) % SOCKETS;
        let mine = 0;
        const socket = await open(target, HISTORY_ROOM, member, (data) => data.includes(`bench history m${member}-`) && mine++);
        for (let i = 0; i < PER_MEMBER; i++) socket.send(JSON.stringify({ type: "send", content: `bench history m${member}-${i}` }));
        while (mine < PER_MEMBER) await wait(20);
        socket.close();
      }),
    );
  }
}

/** A member scrolls back from the newest message to the first, SCROLLS times: each page's time. */
async function scrollBack(target: Target): Promise<{ pages: number[]; messages: number }> {
  const pages: number[] = [];
  let answered: ((frame: { messages: { id: number }[]; more: boolean }) => void) | null = null;
  const socket = await open(target, HISTORY_ROOM, 0, (data) => {
    if (data.startsWith('{"type":"older"')) answered?.(JSON.parse(data));
  });
  let messages = 0;
  for (let scroll = 0; scroll < SCROLLS; scroll++) {
    let before = Number.MAX_SAFE_INTEGER;
    messages = 0;
    for (;;) {
      const started = performance.now();
      const page = await new Promise<{ messages: { id: number }[]; more: boolean }>((resolve) => {
        answered = resolve;
        socket.send(JSON.stringify({ type: "older", before }));
      });
      pages.push(performance.now() - started);
      messages += page.messages.length;
      if (!page.more || page.messages.length === 0) break;
      before = page.messages[0]!.id;
    }
  }
  socket.close();
  return { pages, messages };
}

/** Deliveries of the messages sent to the room: when each was sent, and each arrival's latency. */
function deliveries() {
  const sentAt = new Map<number, number>();
  const arrived = new Map<number, number>();
  const lastAt = new Map<number, number>();
  const latencies: number[] = [];
  return {
    sentAt,
    latencies,
    arrived,
    lastAt,
    /** A socket's frame: a message frame of ours is timed. */
    onFrame(data: string) {
      // Only new messages: a joining socket's history carries earlier ones.
      if (!data.startsWith('{"type":"message"')) return;
      const at = data.indexOf(MARK);
      if (at === -1) return;
      const seq = Number.parseInt(data.slice(at + MARK.length), 10);
      const sent = sentAt.get(seq);
      if (sent === undefined) return;
      const now = performance.now();
      latencies.push(now - sent);
      arrived.set(seq, (arrived.get(seq) ?? 0) + 1);
      lastAt.set(seq, now - sent);
    },
  };
}

async function measure(target: Target, round: number) {
  if (round === 0) {
    console.log(`${target.name}: seeding ${HISTORY} messages for the scroll-back...`);
    await seedHistory(target);
  }
  console.log(`${target.name}: scrolling back...`);
  const scroll = await scrollBack(target);

  console.log(`${target.name}: connecting ${SOCKETS} sockets...`);
  const timed = deliveries();
  const sockets: WebSocket[] = [];
  for (let i = 0; i < SOCKETS; i += 50) {
    sockets.push(
      ...(await Promise.all(Array.from({ length: Math.min(50, SOCKETS - i) }, (_, k) => open(target, ROOM, i + k, timed.onFrame)))),
    );
  }
  await wait(3000);

  let seq = 0;
  const send = (socket: WebSocket) => {
    timed.sentAt.set(seq, performance.now());
    socket.send(JSON.stringify({ type: "send", content: `bench ${seq}` }));
    seq++;
  };
  const untilDelivered = async (upTo: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    const total = () => [...timed.arrived.values()].reduce((a, b) => a + b, 0);
    while (total() < upTo * SOCKETS && Date.now() < deadline) await wait(50);
    return total();
  };

  console.log(`${target.name}: ${SINGLE_MESSAGES} single messages to all...`);
  for (let i = 0; i < SINGLE_MESSAGES; i++) {
    send(sockets[(i * 37) % SOCKETS]!);
    await untilDelivered(seq, 10_000);
    await wait(200);
  }
  const single = {
    latencies: [...timed.latencies],
    last: [...Array(SINGLE_MESSAGES).keys()].map((s) => timed.lastAt.get(s) ?? Number.NaN),
  };
  const singleDelivered = [...timed.arrived.values()].reduce((a, b) => a + b, 0);

  console.log(`${target.name}: ${RATE} messages a second for ${LOAD_SECONDS} s...`);
  timed.latencies.length = 0;
  const first = seq;
  const cpuBefore = target.cpu();
  const messages = RATE * LOAD_SECONDS;
  const started = performance.now();
  for (let i = 0; i < messages; i++) {
    send(sockets[(i * 7919) % SOCKETS]!);
    const due = started + ((i + 1) * 1000) / RATE;
    const now = performance.now();
    if (due > now) await wait(due - now);
  }
  const delivered = (await untilDelivered(seq, 120_000)) - singleDelivered;
  const cpuAfter = target.cpu();
  const perMessage = (seconds: number) => (seconds * 1000) / (seq - first);
  const load = {
    latencies: [...timed.latencies],
    messages: seq - first,
    delivered,
    cpuMsPerMessage: { all: perMessage(cpuAfter.all - cpuBefore.all), worker: perMessage(cpuAfter.worker - cpuBefore.worker) },
  };
  for (const socket of sockets) socket.close();
  await wait(2000);
  return { scroll, single, singleDelivered, load };
}

const p = (values: number[], at: number) =>
  Math.round(
    percentile(
      [...values].sort((a, b) => a - b),
      at,
    ) * 10,
  ) / 10;

async function main() {
  const state = await buildApp("chat", [APP_PORT, FLOOR_PORT]);
  const floorState = mkdtempSync(join(tmpdir(), "bench-chat-floor-"));
  const members = seedMembers(state);
  const app = serveApp(state, { port: APP_PORT, inspector: 9311 });
  const floor = serveFloor({ config: "bench/floors/chat-floor.wrangler.toml", port: FLOOR_PORT, inspector: 9312, state: floorState });
  try {
    await Promise.all([app.ready(), floor.ready()]);
    const origin = app.url.replace("http://", "ws://");
    const cpuOf = (pid: number | undefined) => () => ({ all: cpuSeconds(pid), worker: cpuSeconds(pid, runsTheWorker) });
    const targets: Target[] = [
      {
        name: "app",
        url: (room) => `${origin}/chat/ws?room=${room}`,
        headers: (member) => ({ Origin: app.url, Cookie: `__Host-session=${members[member]!.token}` }),
        cpu: cpuOf(app.pid),
      },
      {
        name: "floor",
        url: (room, member) => `${floor.url.replace("http://", "ws://")}/ws?room=${room}&member=m${member}`,
        headers: () => ({}),
        cpu: cpuOf(floor.pid),
      },
    ];
    // Taken in turns (app, floor, floor, app), so a change in what else the machine runs falls on both.
    const rounds = new Map<Target, number>();
    const [appRuns, floorRuns] = await inTurns(targets, ROUNDS, (target) => {
      const round = rounds.get(target) ?? 0;
      rounds.set(target, round + 1);
      return measure(target, round);
    });
    type Run = Awaited<ReturnType<typeof measure>>;
    const pooled = (runs: Run[], pick: (run: Run) => number[]) => runs.flatMap(pick);
    const rows: [string, (run: Run) => number[]][] = [
      ["one message to every socket: each delivery", (run) => run.single.latencies],
      ["one message to every socket: the last delivery", (run) => run.single.last],
      [`${RATE} messages a second over the ${SOCKETS} sockets: each delivery`, (run) => run.load.latencies],
      [`a page of 50 while scrolling back ${HISTORY} messages`, (run) => run.scroll.pages],
    ];
    const figures = rows.map(([label, pick]) => {
      const a = pooled(appRuns!, pick);
      const f = pooled(floorRuns!, pick);
      return {
        label,
        app: { p50: p(a, 50), p95: p(a, 95), samples: a.length },
        floor: { p50: p(f, 50), p95: p(f, 95), samples: f.length },
        p95VsFloor: ratio(p(a, 95), p(f, 95)),
      };
    });
    const cpu = (runs: Run[], which: "all" | "worker") =>
      Math.round((runs.reduce((sum, run) => sum + run.load.cpuMsPerMessage[which], 0) / runs.length) * 10) / 10;
    const count = (runs: Run[], pick: (run: Run) => number) => runs.reduce((sum, run) => sum + pick(run), 0);
    const results = {
      date: new Date().toISOString().slice(0, 10),
      sockets: SOCKETS,
      rate: RATE,
      seconds: LOAD_SECONDS,
      rounds: ROUNDS,
      figures,
      deliveries: Object.fromEntries(
        [
          ["app", appRuns!],
          ["floor", floorRuns!],
        ].map(([name, runs]) => [
          name,
          {
            single: count(runs as Run[], (run) => run.singleDelivered),
            load: count(runs as Run[], (run) => run.load.delivered),
            expected: count(runs as Run[], (run) => run.load.messages * SOCKETS),
          },
        ]),
      ) as Record<"app" | "floor", { single: number; load: number; expected: number }>,
      cpuMsPerMessage: {
        app: { all: cpu(appRuns!, "all"), worker: cpu(appRuns!, "worker") },
        floor: { all: cpu(floorRuns!, "all"), worker: cpu(floorRuns!, "worker") },
      },
      scrolled: { app: appRuns![0]!.scroll.messages, floor: floorRuns![0]!.scroll.messages },
    };
    const { app: appCpu, floor: floorCpu } = results.cpuMsPerMessage;
    const markdown = [
      "| scenario | app p50 ms | app p95 ms | floor p50 ms | floor p95 ms | p95 vs floor | samples (app / floor) |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...figures.map(
        (f) =>
          `| ${f.label} | ${f.app.p50} | ${f.app.p95} | ${f.floor.p50} | ${f.floor.p95} | ${f.p95VsFloor}× | ${f.app.samples} / ${f.floor.samples} |`,
      ),
      "",
      `| CPU per message under load, its fan-out to ${SOCKETS} sockets included | app ms | floor ms | app vs floor |`,
      "|---|---:|---:|---:|",
      `| the workerd running the Worker and its room | ${appCpu.worker} | ${floorCpu.worker} | ${ratio(appCpu.worker, floorCpu.worker)}× |`,
      `| all of wrangler's processes (the local proxy in front included) | ${appCpu.all} | ${floorCpu.all} | ${ratio(appCpu.all, floorCpu.all)}× |`,
      "",
      `Deliveries: single messages ${results.deliveries.app.single} (app) and ${results.deliveries.floor.single} (floor) of ${ROUNDS * SINGLE_MESSAGES * SOCKETS}; under load ${results.deliveries.app.load} and ${results.deliveries.floor.load} of ${results.deliveries.app.expected}. Each scroll-back read ${results.scrolled.app} (app) and ${results.scrolled.floor} (floor) messages.`,
      "",
      `Measured ${results.date}: ${SOCKETS} sockets in one room, ${SINGLE_MESSAGES} single messages 200 ms apart, then ${RATE} messages a second for ${LOAD_SECONDS} s, each from another socket; ${SCROLLS} scroll-backs through ${HISTORY} messages, 50 a page; ${ROUNDS} rounds taken in turns (app, floor, floor, app), samples pooled; ${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd). The load generator (Node's \`ws\`) shares the machine.`,
    ].join("\n");
    publish("chat-room", results, markdown);
    const short = (d: { single: number; load: number; expected: number }) =>
      d.load < d.expected || d.single < ROUNDS * SINGLE_MESSAGES * SOCKETS;
    if (short(results.deliveries.app) || short(results.deliveries.floor))
      throw new Error("some deliveries did not arrive: see the figures");
  } finally {
    await stopAndWait([app.pid, floor.pid], () => {
      app.stop();
      floor.stop();
    });
    rmSync(state, { recursive: true, force: true });
    rmSync(floorState, { recursive: true, force: true });
  }
}

await main();
