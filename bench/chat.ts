// Chat fan-out benchmark: 50 signed-in members connected to the chat room of the production build
// (wrangler's local workerd). Members take turns sending messages; every member records how long
// each message took to reach it. Reports p50/p95/p99 of the fan-out latency, and writes the
// figures into docs/performance.md between the chat bench markers.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { publish, waitFor, wranglerDev } from "./shared.ts";

const MEMBERS = 50;
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);
const SEND_EVERY_MS = 40;
const PORT = 4191;
const ORIGIN = `http://127.0.0.1:${PORT}`;

interface Member {
  id: string;
  token: string;
  socket?: WebSocket;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function seedMembers(state: string): Member[] {
  const now = Date.now();
  const members = Array.from({ length: MEMBERS }, () => ({ id: randomUUID(), token: randomBytes(32).toString("base64url") }));
  const rows = members.map((m, i) => {
    const hash = createHash("sha256").update(m.token).digest("hex");
    return [
      `insert into users (id, email, password_hash, email_verified_at, created_at) values ('${m.id}', 'bench${i}@example.test', null, ${now}, ${now});`,
      `insert into profiles (id, username, created_at) values ('${m.id}', 'bench${i}', ${now});`,
      `insert into sessions (id, public_id, user_id, created_at, last_seen_at, expires_at) values ('${hash}', 'bench-session-${i}', '${m.id}', ${now}, ${now}, ${now + 86_400_000});`,
    ].join("\n");
  });
  const file = join(state, "seed.sql");
  writeFileSync(file, rows.join("\n"));
  const wrangler = (args: string[]) => execFileSync("wrangler", args, { stdio: "ignore", env: { ...process.env, CI: "true" } });
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state]);
  wrangler(["d1", "execute", "DB", "--local", "--persist-to", state, "--file", file]);
  return members;
}

async function main() {
  if (!existsSync("build/server/wrangler.json")) execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  const state = mkdtempSync(join(tmpdir(), "bench-chat-"));
  const members = seedMembers(state);
  const server = wranglerDev(["-c", "build/server/wrangler.json", "--persist-to", state, "--inspector-port", "9311"], PORT);
  try {
    await waitFor(`${ORIGIN}/robots.txt`);
    const latencies: number[] = [];
    const sentAt = new Map<string, number>();
    let received = 0;
    await Promise.all(
      members.map(
        (member) =>
          new Promise<void>((resolve, reject) => {
            const socket = new WebSocket(`ws://127.0.0.1:${PORT}/chat/ws`, {
              headers: { Origin: ORIGIN, Cookie: `__Host-session=${member.token}` },
            });
            member.socket = socket;
            socket.on("error", reject);
            socket.on("message", (raw) => {
              const frame = JSON.parse(String(raw)) as { type: string; message?: { content: string } };
              if (frame.type === "history") resolve();
              if (frame.type === "message" && frame.message) {
                const sent = sentAt.get(frame.message.content);
                if (sent !== undefined) {
                  latencies.push(performance.now() - sent);
                  received++;
                }
              }
            });
          }),
      ),
    );
    console.log(`${MEMBERS} members connected; sending ${MESSAGES} messages...`);
    for (let i = 0; i < MESSAGES; i++) {
      const content = `bench ${i} ${randomUUID()}`;
      sentAt.set(content, performance.now());
      members[i % MEMBERS]!.socket!.send(JSON.stringify({ type: "send", content }));
      await new Promise((r) => setTimeout(r, SEND_EVERY_MS));
    }
    const expected = MESSAGES * MEMBERS;
    for (let i = 0; i < 100 && received < expected; i++) await new Promise((r) => setTimeout(r, 100));
    for (const member of members) member.socket?.close();

    const sorted = [...latencies].sort((a, b) => a - b);
    const round = (n: number) => Math.round(n * 10) / 10;
    const results = {
      date: new Date().toISOString().slice(0, 10),
      members: MEMBERS,
      messages: MESSAGES,
      deliveries: received,
      expected,
      p50: round(percentile(sorted, 50)),
      p95: round(percentile(sorted, 95)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted.at(-1) ?? 0),
    };
    const markdown = [
      "| connected members | messages | deliveries | fan-out p50 ms | p95 ms | p99 ms | max ms |",
      "|---:|---:|---:|---:|---:|---:|---:|",
      `| ${results.members} | ${results.messages} | ${results.deliveries} of ${results.expected} | ${results.p50} | ${results.p95} | ${results.p99} | ${results.max} |`,
      "",
      `Measured ${results.date}: one message every ${SEND_EVERY_MS} ms, senders taking turns; latency from send to arrival at each member (sender included), ${cpus().length} CPU cores, wrangler dev (local workerd).`,
    ].join("\n");
    publish("chat", results, markdown);
    if (received < expected) throw new Error(`only ${received} of ${expected} deliveries arrived`);
  } finally {
    server.kill("SIGTERM");
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
