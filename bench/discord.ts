// The Discord reconcile sweep over 10,000 linked members: builds the app, serves the production
// build with wrangler's local workerd pointed (DISCORD_API_URL, a bot token) at a local stand-in
// for Discord's REST API that answers with Discord's shapes and records every request, seeds D1
// with 10,000 linked members and their licences, and the stand-in's guild with their roles, some of
// them wrong: a role removed by hand (to restore), a role kept after the licence expired (to remove),
// members not in the server (to park). Triggers the cron five times (five cron runs' worth: 2,000
// members each) and waits until the guild matches the licences. Every request names the Worker
// invocation that made it (X-Invocation-Id), so the requests of each invocation are counted
// exactly, against the 50 subrequests Workers allow one invocation on the Free plan. Checks the
// result (the guild and D1 match the licences, every member read, nothing failed) and writes
// bench/results/discord.json and docs/performance.md between the discord bench markers.
import { rmSync } from "node:fs";
import { createServer } from "node:http";
import { cpus } from "node:os";
import { buildApp, FREE_SUBREQUESTS, publish, queryD1, seedD1, serveApp, triggerCron } from "./shared.ts";

const MEMBERS = 10_000;
/** As in app/server/discord/reconcile.server.ts. */
const MEMBERS_PER_SWEEP = 2_000;
const GUILD = "1400000000000000001";
const ROLE = "1400000000000000011";
const BOT = "1400000000000000002";
const BOT_ROLE = "1400000000000000010";
const STUB_PORT = 8911;
const APP_PORT = 8912;
const INSPECTOR_PORT = 8913;
const TIMEOUT_MS = 45 * 60_000;
/** Done once the guild is right, every member was read, and Discord has had no request for this long. */
const QUIET_MS = 5_000;
/** Rows per insert statement in the seed. */
const ROWS_PER_INSERT = 500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const discordId = (i: number) => String(1_500_000_000_000_000_000n + BigInt(i));
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** Member i: its licence, and how the guild has it before the sweep. */
function member(i: number) {
  const active = i % 2 === 0;
  const expired = i % 10 === 1; // had a weekly key that ran out: Discord still shows the role
  const inGuild = i % 50 !== 3; // left the server (or never joined)
  const removedByHand = active && i % 20 === 0;
  const hasRole = inGuild && ((active && !removedByHand) || expired);
  return { active, expired, inGuild, removedByHand, hasRole, shouldHave: inGuild && active };
}
const everyone = Array.from({ length: MEMBERS }, (_, i) => member(i));

/** `rows` as insert statements of ROWS_PER_INSERT rows each. */
function inserts(table: string, columns: string, rows: string[]): string[] {
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
    statements.push(`insert into ${table} (${columns}) values ${rows.slice(i, i + ROWS_PER_INSERT).join(", ")};`);
  return statements;
}

/** The guild and its rule, and each member: an account, its Discord link, its licence, and its sync row as an earlier sync left it. */
function seed(state: string) {
  const now = Date.now();
  const users: string[] = [];
  const links: string[] = [];
  const syncs: string[] = [];
  const keys: string[] = [];
  everyone.forEach((m, i) => {
    const id = `bench-discord-${i}`;
    const email = `discord-${i}@example.test`;
    users.push(`('${id}', '${email}', ${now}, ${now})`);
    links.push(`('discord', '${discordId(i)}', 'member${i}', '${id}', ${now})`);
    // Synced before: the row's desired roles are what they were while every licence ran.
    syncs.push(`('${id}', '${discordId(i)}', '${m.active || m.expired ? `["${ROLE}"]` : "[]"}', null, 'synced', 0)`);
    if (m.active || m.expired)
      keys.push(
        `('BENCH-DISCORD-${i}', 'Vertex Rust', 'weekly', '${email}', ${now}, ${now}, ${m.active ? now + 7 * 86_400_000 : now - 86_400_000})`,
      );
  });
  seedD1(state, "members", [
    `insert into discord_settings (id, guild_id, updated_at) values (1, '${GUILD}', ${now});`,
    `insert into discord_role_rules (grant, role_id, role_name, created_at) values ('any', '${ROLE}', 'Subscriber', ${now});`,
    ...inserts("users", "id, email, email_verified_at, created_at", users),
    ...inserts("oauth_accounts", "provider, provider_user_id, provider_username, user_id, created_at", links),
    ...inserts("discord_role_sync", "user_id, discord_id, desired_roles, actual_roles, state, checked_at", syncs),
    ...inserts("licences", "key, product, plan, owner_email, created_at, activated_at, expires_at", keys),
  ]);
}

interface DiscordRequest {
  at: number;
  answeredAt: number;
  method: string;
  kind: "member" | "role" | "health";
  /** The member the request is about (null for the bot's own requests). */
  user: string | null;
  /** The X-Invocation-Id it came with. */
  invocation: string | null;
  status: number;
}

/** A stand-in for Discord's REST API v10: the guild's members and roles in memory, every request noted. */
async function startDiscordStub(port: number) {
  const roles = new Map<string, Set<string>>();
  everyone.forEach((m, i) => m.inGuild && roles.set(discordId(i), new Set(m.hasRole ? [ROLE] : [])));
  roles.set(BOT, new Set([BOT_ROLE]));
  const requests: DiscordRequest[] = [];
  const server = createServer((req, res) => {
    const at = Date.now();
    const parts = new URL(req.url ?? "/", "http://stub").pathname.replace(/^\/api\/v10\//, "").split("/");
    const [, guild, collection, user, sub, role] = parts;
    const answer = (status: number, body: unknown, kind: DiscordRequest["kind"]) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(status === 204 ? undefined : JSON.stringify(body));
      const invocation = req.headers["x-invocation-id"];
      requests.push({
        at,
        answeredAt: Date.now(),
        method: req.method ?? "GET",
        kind,
        user: kind === "health" ? null : (user ?? null),
        invocation: typeof invocation === "string" ? invocation : null,
        status,
      });
    };
    if (req.headers.authorization !== "Bot bench-token") return answer(401, { code: 0, message: "401: Unauthorized" }, "health");
    if (parts.join("/") === "users/@me") return answer(200, { id: BOT, username: "Bench Bot", bot: true }, "health");
    if (guild !== GUILD) return answer(404, { code: 10004, message: "Unknown Guild" }, "health");
    if (collection === "roles") {
      return answer(
        200,
        [
          { id: GUILD, name: "@everyone", position: 0, permissions: "0" },
          { id: BOT_ROLE, name: "Bench Bot", position: 10, permissions: String(1n << 28n) },
          { id: ROLE, name: "Subscriber", position: 2, permissions: "0" },
        ],
        "health",
      );
    }
    const kind = user === BOT ? "health" : sub ? "role" : "member";
    const held = roles.get(user ?? "");
    if (!held) return answer(404, { code: 10007, message: "Unknown Member" }, kind);
    if (!sub) return answer(200, { user: { id: user, username: user }, roles: [...held] }, kind);
    if (req.method === "PUT") held.add(role!);
    else held.delete(role!);
    return answer(204, null, kind);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    requests,
    roles,
    url: `http://127.0.0.1:${port}/api/v10`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the Worker's idle keep-alive connections
      }),
  };
}

/** Members whose roles in the stand-in's guild are not what their licences say. */
const wrongMembers = (roles: Map<string, Set<string>>) =>
  everyone.filter((m, i) => m.inGuild && roles.get(discordId(i))!.has(ROLE) !== m.shouldHave).length;

/** Waits until every member was read, the guild matches the licences and Discord has been quiet. */
async function waitUntilReconciled(stub: Awaited<ReturnType<typeof startDiscordStub>>, app: { gone(): boolean }, deadline: number) {
  for (;;) {
    if (app.gone()) throw new Error("wrangler dev ended before the sweep was done");
    const read = new Set(stub.requests.filter((r) => r.kind === "member").map((r) => r.user)).size;
    const last = stub.requests.at(-1)?.answeredAt ?? 0;
    if (read >= MEMBERS && wrongMembers(stub.roles) === 0 && Date.now() - last >= QUIET_MS) return;
    if (Date.now() > deadline)
      throw new Error(`not done before the timeout: ${read} of ${MEMBERS} members read, ${wrongMembers(stub.roles)} still wrong`);
    await sleep(1_000);
  }
}

/** What D1 and the guild say once the sweep is done, each against what it must be; throws on any difference. */
function checkResult(state: string, requests: DiscordRequest[], roles: Map<string, Set<string>>) {
  const [states, [desired], [failed]] = queryD1(
    state,
    `select state, count(*) as n from discord_role_sync group by state; select count(*) as n from discord_role_sync where desired_roles = '["${ROLE}"]'; select count(*) as n from failed_jobs`,
  ) as [{ state: string; n: number }[], { n: number }[], { n: number }[]];
  const byState = Object.fromEntries(states.map((row) => [row.state, row.n]));
  const inGuild = everyone.filter((m) => m.inGuild).length;
  const checks = {
    "members in the guild whose roles differ from their licences": { expected: 0, value: wrongMembers(roles) },
    "members read from Discord": { expected: MEMBERS, value: new Set(requests.filter((r) => r.kind === "member").map((r) => r.user)).size },
    "sync rows synced": { expected: inGuild, value: byState.synced ?? 0 },
    "sync rows parked outside the server": { expected: MEMBERS - inGuild, value: byState["not-in-guild"] ?? 0 },
    "sync rows pending, retrying or failed": {
      expected: 0,
      value: (byState.pending ?? 0) + (byState.retrying ?? 0) + (byState.failed ?? 0),
    },
    "sync rows whose desired roles hold the role": { expected: everyone.filter((m) => m.active).length, value: desired!.n },
    "failed jobs": { expected: 0, value: failed!.n },
    "requests without an invocation id": { expected: 0, value: requests.filter((r) => !r.invocation).length },
    "requests answered other than 200, 204 or 404 (10007)": {
      expected: 0,
      value: requests.filter((r) => ![200, 204, 404].includes(r.status)).length,
    },
  };
  for (const [name, { expected, value }] of Object.entries(checks))
    console.log(`${value === expected ? "ok  " : "FAIL"} ${name}: ${value} (expected ${expected})`);
  const wrong = Object.entries(checks).filter(([, c]) => c.value !== c.expected);
  if (wrong.length > 0)
    throw new Error(
      `the sweep's result is incomplete or wrong: ${wrong.map(([name, c]) => `${name} ${c.value} ≠ ${c.expected}`).join("; ")}`,
    );
  return checks;
}

async function main() {
  const state = await buildApp("discord", [STUB_PORT, APP_PORT, INSPECTOR_PORT]);
  seed(state);
  const stub = await startDiscordStub(STUB_PORT);
  const app = serveApp(state, {
    port: APP_PORT,
    inspector: INSPECTOR_PORT,
    vars: { DISCORD_API_URL: stub.url, DISCORD_BOT_TOKEN: "bench-token" },
    logBatches: true,
  });
  try {
    await app.ready();
    const before = wrongMembers(stub.roles);
    const triggeredAt = Date.now();
    // Five cron runs' worth of the sweep, back to back (on Cloudflare, five runs five minutes apart).
    for (let run = 0; run < MEMBERS / MEMBERS_PER_SWEEP; run++) await triggerCron(app.url);
    await waitUntilReconciled(stub, app, triggeredAt + TIMEOUT_MS);
    const { requests } = stub;
    const checks = checkResult(state, requests, stub.roles);

    // Every request counted against the invocation that made it (its X-Invocation-Id).
    const perInvocation = new Map<string, { requests: number; queue: boolean }>();
    for (const r of requests) {
      const entry = perInvocation.get(r.invocation!) ?? { requests: 0, queue: false };
      entry.requests++;
      entry.queue ||= r.kind !== "health";
      perInvocation.set(r.invocation!, entry);
    }
    const invocations = [...perInvocation.values()];
    const queueInvocations = invocations.filter((i) => i.queue);
    const maxPerInvocation = Math.max(...invocations.map((i) => i.requests));
    const queueRequests = requests.filter((r) => r.kind !== "health");
    const counts = {
      memberReads: queueRequests.filter((r) => r.kind === "member").length,
      roleChanges: queueRequests.filter((r) => r.kind === "role").length,
      health: requests.filter((r) => r.kind === "health").length,
    };
    const restored = everyone.filter((m) => m.inGuild && m.active && !m.hasRole).length;
    const removed = everyone.filter((m) => m.inGuild && m.expired).length;
    const parked = everyone.filter((m) => !m.inGuild).length;
    const lastAnswer = Math.max(...queueRequests.map((r) => r.answeredAt)) - triggeredAt;
    const goal = {
      target: `≤ ${FREE_SUBREQUESTS} Discord requests in any one invocation`,
      value: maxPerInvocation,
      pass: maxPerInvocation <= FREE_SUBREQUESTS,
    };
    console.log(`${goal.pass ? "PASS" : "FAIL"} most Discord requests in one invocation: ${maxPerInvocation}`);
    const results = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd)`,
      members: MEMBERS,
      before: { wrong: before, restored, removed, parked },
      requests: counts,
      invocations: { calledDiscord: invocations.length, queue: queueInvocations.length, queueBatchesLogged: app.batches.length },
      maxPerInvocation,
      meanPerQueueInvocation: Math.round(queueRequests.length / queueInvocations.length),
      lastAnswerMs: lastAnswer,
      checks,
      goal,
    };
    const markdown = [
      "| figure | value |",
      "|---|---:|",
      `| linked members compared with Discord | ${MEMBERS.toLocaleString("en")} (five cron runs of ${MEMBERS_PER_SWEEP.toLocaleString("en")}) |`,
      `| wrong before the sweep: role removed by hand / kept after expiry / not in the server | ${restored} / ${removed} / ${parked} |`,
      `| wrong after the sweep | 0 (the ${parked} outside the server parked) |`,
      `| Discord requests from the queue: member reads / role changes | ${counts.memberReads.toLocaleString("en")} / ${counts.roleChanges.toLocaleString("en")} |`,
      `| queue invocations that called Discord | ${queueInvocations.length} (${results.meanPerQueueInvocation} requests each on average) |`,
      `| **most Discord requests in one invocation** | **${maxPerInvocation}** (limit ${FREE_SUBREQUESTS}) |`,
      `| first cron trigger → guild matches the licences | ${seconds(lastAnswer)} s |`,
      "",
      `Goal: at most ${FREE_SUBREQUESTS} Discord requests in any one invocation (the Free plan's subrequest limit): ${goal.pass ? "pass" : "**fail**"} (${maxPerInvocation}).`,
      "",
      `Completeness: every member read; the guild matches the licences; ${checks["sync rows synced"].value.toLocaleString("en")} sync rows synced and ${checks["sync rows parked outside the server"].value} parked; no failed jobs. Each request is counted against the invocation named by its \`X-Invocation-Id\`.`,
      "",
      `Measured ${results.date}, ${results.machine}; the cron triggered through /cdn-cgi/local/scheduled, Discord a local stand-in.`,
    ].join("\n");
    publish("discord", results, markdown);
    if (!goal.pass) process.exitCode = 1;
  } finally {
    app.stop();
    await stub.close();
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
