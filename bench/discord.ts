// The Discord reconcile sweep over 10,000 linked members: builds the app, serves the production
// build with wrangler's local workerd pointed (DISCORD_API_URL, a bot token) at a local stand-in
// for Discord's REST API that answers with Discord's shapes and records every request, seeds D1
// with 10,000 linked members and their licences, and the stand-in's guild with their roles, some of
// them wrong: a role removed by hand (to restore), a role kept after the licence expired (to remove),
// members not in the server (to park). Triggers the cron five times (five cron runs' worth: 2,000
// members each) and waits until the guild matches the licences. Counts the Discord requests of each
// queue invocation, which Workers limits (50 subrequests per invocation on the Free plan). Writes
// bench/results/discord.json and the README between the discord bench markers.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { assertFree, publish, wrangler, wranglerDev, waitFor } from "./shared.ts";

const MEMBERS = 10_000;
/** As in app/server/hub/discord/reconcile.server.ts. */
const MEMBERS_PER_SWEEP = 2_000;
const FREE_SUBREQUESTS = 50;
const GUILD = "1400000000000000001";
const ROLE = "1400000000000000011";
const BOT = "1400000000000000002";
const BOT_ROLE = "1400000000000000010";
const STUB_PORT = 8811;
const APP_PORT = 8812;
const INSPECTOR_PORT = 8813;
const TIMEOUT_MS = 10 * 60_000;
const QUIET_MS = 3_000;
const LOG_SLACK_MS = 100;
const CRON = "*/5 * * * *";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const discordId = (i: number) => String(1_500_000_000_000_000_000n + BigInt(i));

/** Member i: its licence, and how the guild has it before the sweep. */
function member(i: number) {
  const active = i % 2 === 0;
  const expired = i % 10 === 1; // had a weekly key that ran out: Discord still shows the role
  const inGuild = i % 50 !== 3; // left the server (or never joined)
  const removedByHand = active && i % 20 === 0;
  const hasRole = inGuild && ((active && !removedByHand) || expired);
  return { active, expired, inGuild, hasRole, shouldHave: inGuild && active };
}

function seed(state: string) {
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state]);
  const now = Date.now();
  const lines = [
    `insert into discord_settings (id, guild_id, updated_at) values (1, '${GUILD}', ${now});`,
    `insert into discord_role_rules (grant, role_id, role_name, created_at) values ('any', '${ROLE}', 'Subscriber', ${now});`,
  ];
  for (let i = 0; i < MEMBERS; i++) {
    const m = member(i);
    const id = `bench-discord-${i}`;
    const email = `discord-${i}@example.test`;
    lines.push(
      `insert into users (id, email, email_verified_at, created_at) values ('${id}', '${email}', ${now}, ${now});`,
      `insert into oauth_accounts (provider, provider_user_id, provider_username, user_id, created_at) values ('discord', '${discordId(i)}', 'member${i}', '${id}', ${now});`,
      // Synced before: the row's desired roles are what they were while every licence ran.
      `insert into discord_role_sync (user_id, discord_id, desired_roles, actual_roles, state, checked_at) values ('${id}', '${discordId(i)}', '${m.active || m.expired ? `["${ROLE}"]` : "[]"}', null, 'synced', 0);`,
    );
    if (m.active || m.expired) {
      const expiresAt = m.active ? now + 7 * 86_400_000 : now - 86_400_000;
      lines.push(`insert into licences (key, product, plan, owner_email, created_at, activated_at, expires_at) values ('BENCH-DISCORD-${i}', 'Vertex Rust', 'weekly', '${email}', ${now}, ${now}, ${expiresAt});`);
    }
  }
  const file = join(state, "members.sql");
  writeFileSync(file, lines.join("\n"));
  wrangler(["d1", "execute", "DB", "--local", "--persist-to", state, "--file", file]);
}

interface DiscordRequest {
  at: number;
  answeredAt: number;
  method: string;
  kind: "member" | "role" | "health";
}

/** A stand-in for Discord's REST API v10: the guild's members and roles in memory, every request noted. */
async function startDiscordStub(port: number) {
  const roles = new Map<string, Set<string>>();
  for (let i = 0; i < MEMBERS; i++) {
    const m = member(i);
    if (m.inGuild) roles.set(discordId(i), new Set(m.hasRole ? [ROLE] : []));
  }
  roles.set(BOT, new Set([BOT_ROLE]));
  const requests: DiscordRequest[] = [];
  const server = createServer((req, res) => {
    const at = Date.now();
    const parts = new URL(req.url ?? "/", "http://stub").pathname.replace(/^\/api\/v10\//, "").split("/");
    const answer = (status: number, body: unknown, kind: DiscordRequest["kind"]) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(status === 204 ? undefined : JSON.stringify(body));
      requests.push({ at, answeredAt: Date.now(), method: req.method ?? "GET", kind });
    };
    if (parts.join("/") === "users/@me") return answer(200, { id: BOT, username: "Bench Bot", bot: true }, "health");
    const [, guild, collection, user, sub, role] = parts;
    if (guild !== GUILD) return answer(404, { code: 10004, message: "Unknown Guild" }, "health");
    if (collection === "roles") {
      return answer(200, [
        { id: GUILD, name: "@everyone", position: 0, permissions: "0" },
        { id: BOT_ROLE, name: "Bench Bot", position: 10, permissions: String(1n << 28n) },
        { id: ROLE, name: "Subscriber", position: 2, permissions: "0" },
      ], "health");
    }
    const held = roles.get(user ?? "");
    if (!held) return answer(404, { code: 10007, message: "Unknown Member" }, sub ? "role" : "member");
    if (!sub) return answer(200, { user: { id: user, username: user }, roles: [...held] }, user === BOT ? "health" : "member");
    if (req.method === "PUT") held.add(role!);
    else held.delete(role!);
    return answer(204, null, "role");
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { requests, roles, url: `http://127.0.0.1:${port}/api/v10`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Members whose roles in the stand-in's guild are not what their licences say. */
function wrongMembers(roles: Map<string, Set<string>>): number {
  let wrong = 0;
  for (let i = 0; i < MEMBERS; i++) {
    const m = member(i);
    if (m.inGuild && roles.get(discordId(i))!.has(ROLE) !== m.shouldHave) wrong++;
  }
  return wrong;
}

interface Batch {
  loggedAt: number;
  ms: number;
  size: number;
}

async function main() {
  execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  for (const port of [STUB_PORT, APP_PORT, INSPECTOR_PORT]) await assertFree(port);
  const state = mkdtempSync(join(tmpdir(), "bench-discord-"));
  seed(state);
  const stub = await startDiscordStub(STUB_PORT);
  const batches: Batch[] = [];
  const onLog = (line: string) => {
    const batch = line.match(/QUEUE keyshop-fulfilment (\d+)\/(\d+) \((\d+)ms\)/);
    if (batch) batches.push({ loggedAt: Date.now(), size: Number(batch[2]), ms: Number(batch[3]) });
  };
  const vars = ["--var", `DISCORD_API_URL:${stub.url}`, "--var", "DISCORD_BOT_TOKEN:bench-token"];
  const app = wranglerDev(["-c", "build/server/wrangler.json", "--persist-to", state, "--inspector-port", String(INSPECTOR_PORT), ...vars], APP_PORT, onLog);
  const appUrl = `http://127.0.0.1:${APP_PORT}`;
  try {
    await waitFor(`${appUrl}/robots.txt`);
    const before = { wrong: wrongMembers(stub.roles) };
    const triggeredAt = Date.now();
    // Five cron runs' worth of the sweep, back to back (on Cloudflare, five runs five minutes apart).
    for (let run = 0; run < MEMBERS / MEMBERS_PER_SWEEP; run++) {
      const trigger = await fetch(`${appUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent(CRON)}`);
      if (!trigger.ok) throw new Error(`the scheduled trigger answered ${trigger.status}: ${await trigger.text()}`);
    }
    const deadline = triggeredAt + TIMEOUT_MS;
    for (;;) {
      const memberReads = stub.requests.filter((r) => r.kind === "member").length;
      const last = stub.requests.at(-1)?.answeredAt ?? 0;
      if (memberReads >= MEMBERS && wrongMembers(stub.roles) === 0 && Date.now() - last >= QUIET_MS) break;
      if (Date.now() > deadline) throw new Error(`not done before the timeout: ${memberReads} member reads, ${wrongMembers(stub.roles)} members still wrong`);
      await sleep(500);
    }
    const queueRequests = stub.requests.filter((r) => r.kind !== "health");
    const lastAnswer = Math.max(...queueRequests.map((r) => r.answeredAt)) - triggeredAt;
    // Each request counts toward every invocation running when it was made: an upper bound where batches overlap.
    const invocations = batches.map((b) => ({ start: b.loggedAt - b.ms - LOG_SLACK_MS, end: b.loggedAt + LOG_SLACK_MS, size: b.size }));
    const perInvocation = invocations.map((i) => queueRequests.filter((r) => r.at >= i.start && r.at <= i.end).length).filter((n) => n > 0);
    const maxPerInvocation = Math.max(...perInvocation);
    const counts = {
      memberReads: queueRequests.filter((r) => r.kind === "member").length,
      roleChanges: queueRequests.filter((r) => r.kind === "role").length,
      health: stub.requests.filter((r) => r.kind === "health").length,
    };
    const restored = Array.from({ length: MEMBERS }, (_, i) => member(i)).filter((m) => m.inGuild && m.active && !m.hasRole).length;
    const removed = Array.from({ length: MEMBERS }, (_, i) => member(i)).filter((m) => m.inGuild && m.expired).length;
    const parked = Array.from({ length: MEMBERS }, (_, i) => member(i)).filter((m) => !m.inGuild).length;
    const goal = { target: `≤ ${FREE_SUBREQUESTS} Discord requests in any one invocation`, value: maxPerInvocation, pass: maxPerInvocation <= FREE_SUBREQUESTS };
    console.log(`${goal.pass ? "PASS" : "FAIL"} most Discord requests in one invocation: ${maxPerInvocation}`);
    const results = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd)`,
      members: MEMBERS,
      before: { wrong: before.wrong, restored, removed, parked },
      requests: counts,
      invocations: perInvocation.length,
      maxPerInvocation,
      lastAnswerMs: lastAnswer,
      goal,
    };
    const markdown = [
      "| figure | value |",
      "|---|---:|",
      `| linked members compared with Discord | ${MEMBERS.toLocaleString("en")} (five cron runs of ${MEMBERS_PER_SWEEP.toLocaleString("en")}) |`,
      `| wrong before the sweep: role removed by hand / kept after expiry / not in the server | ${restored} / ${removed} / ${parked} |`,
      `| wrong after the sweep | ${wrongMembers(stub.roles)} (${parked} parked outside the server) |`,
      `| Discord requests from the queue: member reads / role changes | ${counts.memberReads.toLocaleString("en")} / ${counts.roleChanges.toLocaleString("en")} |`,
      `| queue invocations that called Discord | ${perInvocation.length} |`,
      `| **most Discord requests in one invocation** | **${maxPerInvocation}** |`,
      `| first trigger → guild matches the licences | ${(lastAnswer / 1000).toFixed(1)} s |`,
      "",
      `Goal: at most ${FREE_SUBREQUESTS} Discord requests in any one invocation (the Free plan's subrequest limit): ${goal.pass ? "pass" : "**fail**"} (${maxPerInvocation}).`,
      "",
      `Measured ${results.date}, ${results.machine}; the cron triggered through /cdn-cgi/local/scheduled, Discord a local stand-in; a request is counted toward every queue batch running when it was made (an upper bound where batches overlap).`,
    ].join("\n");
    publish("discord", results, markdown);
    if (!goal.pass) process.exitCode = 1;
  } finally {
    app.kill("SIGTERM");
    await stub.close();
  }
}

await main();
