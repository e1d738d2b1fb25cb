// The doctor (decision 098): `npm run doctor -- https://shop.example` checks a running shop from the
// outside and the inside, and says for each problem what to do. Outside: the shop answers, over
// https, and serves the public half of its licence signing key, the same as the program's build
// carries (with --sdk-key or --sdk-build). Inside, through the shop's /api/health door and its
// HEALTH_TOKEN: every setting and the machinery behind it (the Health page's report), after a ping
// on the job queue and a test e-mail. Exit code 1 when anything needs fixing.
//
//   npm run doctor -- <url> [--token=T | --env staging] [--sdk-key BASE64 | --sdk-build DIR]
//                           [--mail-to ADDRESS | --no-mail] [--json]
//
// The token comes from --token (written with "=": a generated token may begin with "-"), else
// HEALTH_TOKEN in the environment, else the file the setup script saved it in (.health-token, or
// .health-token.<env> with --env).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Finding, HealthReport } from "../app/lib/health.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    token: { type: "string" },
    env: { type: "string" },
    "sdk-key": { type: "string" },
    "sdk-build": { type: "string" },
    "mail-to": { type: "string" },
    "no-mail": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});

const QUEUE_WAIT_MS = 30_000;

interface Outcome {
  label: string;
  state: "ok" | "problem" | "off";
  facts: string[];
  findings: Finding[];
}

const url = positionals[0]?.replace(/\/+$/, "");
if (!url || !/^https?:\/\//.test(url)) {
  console.error("Usage: npm run doctor -- https://your-shop.example [--token=T] [--sdk-key BASE64 | --sdk-build DIR] [--mail-to ADDRESS]");
  process.exit(2);
}

function tokenFile(): string {
  return values.env ? `.health-token.${values.env}` : ".health-token";
}

function healthToken(): string | null {
  if (values.token) return values.token.trim();
  if (process.env.HEALTH_TOKEN) return process.env.HEALTH_TOKEN.trim();
  return existsSync(tokenFile()) ? readFileSync(tokenFile(), "utf8").trim() : null;
}

/** The public key the program's build carries: given, or read from a CMake build directory's cache. */
function sdkKey(): string | null {
  if (values["sdk-key"]) return values["sdk-key"].trim();
  if (!values["sdk-build"]) return null;
  const cache = join(values["sdk-build"], "CMakeCache.txt");
  if (!existsSync(cache)) throw new Error(`${cache} does not exist: give the C++ SDK's build directory`);
  return /^VERTEX_SHOP_PUBLIC_KEY:STRING=(.*)$/m.exec(readFileSync(cache, "utf8"))?.[1]?.trim() || "";
}

async function get(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}${path}`, { ...init, redirect: "manual", signal: AbortSignal.timeout(20_000) });
}

async function outside(): Promise<Outcome[]> {
  const reach: Outcome = { label: "The shop answers", state: "ok", facts: [], findings: [] };
  try {
    const home = await get("/");
    if (home.status !== 200) {
      reach.findings.push({
        problem: `${url}/ answered ${home.status}.`,
        fix: "Check the Worker's route or custom domain in the Cloudflare dashboard, and its logs.",
      });
    } else reach.facts.push(`${url}/ answered 200.`);
  } catch (error) {
    reach.findings.push({
      problem: `${url} cannot be reached: ${error instanceof Error ? error.message : String(error)}`,
      fix: "Check the address, its DNS and that the Worker is deployed (`npm run setup:production`).",
    });
    return [reach];
  }
  const local = /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/.test(url!);
  if (url!.startsWith("http://") && !local) {
    reach.findings.push({
      problem: "The shop is served over plain http: sessions and passkeys need https.",
      fix: "Use the https address (Cloudflare serves every Worker route over https).",
    });
  }

  const key: Outcome = { label: "Licence signing key, from outside", state: "ok", facts: [], findings: [] };
  const answer = await get("/api/v1/licences/signing-key");
  const served = answer.ok ? ((await answer.json()) as { publicKey?: string }).publicKey : undefined;
  if (!served) {
    key.findings.push({
      problem: `/api/v1/licences/signing-key answered ${answer.status}: the program cannot check any answer.`,
      fix: "Set LICENCE_SIGNING_KEY (`npm run setup:production` makes one).",
    });
  } else {
    key.facts.push(`The shop serves the public key ${served}.`);
    const built = sdkKey();
    if (built === "") {
      key.findings.push({
        problem: "The SDK build carries no public key (VERTEX_SHOP_PUBLIC_KEY is empty).",
        fix: `Build the program with -DVERTEX_SHOP_PUBLIC_KEY=${served}.`,
      });
    } else if (built !== null && built !== served) {
      key.findings.push({
        problem: `The program's build carries the public key ${built}, but the shop signs with ${served}: every licence check will fail as tampered.`,
        fix: `Rebuild the program with the shop's key (-DVERTEX_SHOP_PUBLIC_KEY=${served}), or set LICENCE_SIGNING_KEY back to the key the build was made for.`,
      });
    } else if (built === served) key.facts.push("The program's build carries the same key.");
  }
  return [reach, key].map((outcome) => ({ ...outcome, state: outcome.findings.length > 0 ? "problem" : "ok" }));
}

async function inside(token: string): Promise<{ outcomes: Outcome[]; report: HealthReport | null }> {
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const door: Outcome = { label: "The health door", state: "ok", facts: [], findings: [] };
  const ping = await get("/api/health/queue-ping", { method: "POST", headers });
  if (ping.status !== 202) {
    door.state = "problem";
    door.findings.push(
      ping.status === 401
        ? {
            problem: "The shop refused the health token.",
            fix: "Give the token the setup script saved (--token), or make a new one: `npm run setup:production -- --new-health-token`.",
          }
        : {
            problem: `/api/health answered ${ping.status}.`,
            fix: "Set the HEALTH_TOKEN secret (`npm run setup:production` does) and deploy the current version.",
          },
    );
    return { outcomes: [door], report: null };
  }
  const { sentAt } = (await ping.json()) as { sentAt: number };
  // The queue's consumer handles the ping within seconds on a live queue.
  const deadline = Date.now() + QUEUE_WAIT_MS;
  let report: HealthReport;
  for (;;) {
    report = (await (await get("/api/health", { headers })).json()) as HealthReport;
    const jobs = report.checks.find((check) => check.id === "jobs");
    if (jobs?.facts.some((fact) => fact.startsWith("The job queue handled a ping 0 min ago")) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const jobs = report.checks.find((check) => check.id === "jobs")!;
  if (!jobs.facts.some((fact) => fact.startsWith("The job queue handled a ping 0 min ago"))) {
    jobs.state = "problem";
    jobs.findings.push({
      problem: `The job queue did not handle the doctor's ping (sent at ${new Date(sentAt).toISOString()}) within ${QUEUE_WAIT_MS / 1000} s: keys for paid orders wait on it.`,
      fix: "Check that the queues keyshop-jobs and keyshop-jobs-failed exist (`wrangler queues list`) and that this Worker is their consumer (`npm run setup:production` creates them).",
    });
  }
  if (!values["no-mail"]) {
    const mailed = await get("/api/health/mail", {
      method: "POST",
      headers,
      body: JSON.stringify(values["mail-to"] ? { to: values["mail-to"] } : {}),
    });
    if (mailed.ok) {
      const mail = ((await mailed.json()) as HealthReport).checks.find((check) => check.id === "mail")!;
      report.checks = report.checks.map((check) => (check.id === "mail" ? mail : check));
    }
  }
  return { outcomes: report.checks.map(({ label, state, facts, findings }) => ({ label, state, facts, findings })), report };
}

const MARK = { ok: "✔", problem: "✘", off: "–" };

async function main() {
  const outcomes = await outside();
  const token = healthToken();
  let report: HealthReport | null = null;
  if (outcomes[0]!.findings.some((finding) => finding.problem.includes("cannot be reached"))) {
    // Nothing inside can be asked.
  } else if (!token) {
    outcomes.push({
      label: "The health door",
      state: "problem",
      facts: [],
      findings: [
        {
          problem: `No health token: give --token, set HEALTH_TOKEN, or keep the ${tokenFile()} file the setup script wrote.`,
          fix: "Make a new one: `npm run setup:production -- --new-health-token`.",
        },
      ],
    });
  } else {
    const checked = await inside(token);
    outcomes.push(...checked.outcomes);
    report = checked.report;
  }
  const findings = outcomes.flatMap((outcome) => outcome.findings);
  if (values.json) {
    console.log(JSON.stringify({ url, findings: findings.length, checks: outcomes, publicKey: report?.publicKey ?? null }, null, 2));
  } else {
    console.log(`The doctor's report on ${url}\n`);
    for (const outcome of outcomes) {
      console.log(`${MARK[outcome.state]} ${outcome.label}`);
      for (const finding of outcome.findings) console.log(`    ✘ ${finding.problem}\n      → ${finding.fix}`);
      for (const fact of outcome.facts) console.log(`    ${fact}`);
    }
    console.log(findings.length === 0 ? "\nNothing to fix." : `\n${findings.length} thing${findings.length === 1 ? "" : "s"} to fix.`);
  }
  process.exit(findings.length === 0 ? 0 : 1);
}

await main();
