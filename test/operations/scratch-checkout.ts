// What the operations tests share: a scratch copy of the shop's configuration and migrations, and
// a script of the shop run against the stand-in for Cloudflare's API.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STAND_IN_ACCOUNT, type StandIn } from "./cloudflare-stand-in.ts";

export const ROOT = join(import.meta.dirname, "..", "..");

/** A copy of the shop's configuration and migrations, with a stand-in Worker and no static files. */
export function scratchCheckout(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  cpSync(join(ROOT, "migrations"), join(dir, "migrations"), { recursive: true });
  // No static files, so no [assets] section (its binding would ask for their folder).
  const config = readFileSync(join(ROOT, "wrangler.toml"), "utf8").replace(/\[assets\]\n(?:\w[^\n]*\n)*/, "");
  writeFileSync(join(dir, "wrangler.toml"), config);
  mkdirSync(join(dir, "workers"));
  writeFileSync(
    join(dir, "workers", "app.ts"),
    'import { DurableObject } from "cloudflare:workers";\nexport class ChatRoom extends DurableObject {}\nexport class KeyWatch extends DurableObject {}\nexport default { fetch: () => new Response("ok"), queue() {}, scheduled() {} };\n',
  );
  return dir;
}

/**
 * Runs `scripts/<script>` in `folder` as the owner would, against `standIn`, and resolves once it
 * ends. Never spawnSync: the stand-in answers from this process, so a blocked event loop would
 * leave wrangler waiting on it.
 */
export function runScript(standIn: StandIn, folder: string, script: string, args: string[], env: Record<string, string> = {}) {
  return run(standIn, folder, process.execPath, [join(ROOT, "scripts", script), "--config", join(folder, "wrangler.toml"), ...args], env);
}

/** Runs wrangler in `folder` against `standIn`, as runScript runs a script. */
export function runWrangler(standIn: StandIn, folder: string, args: string[]) {
  return run(standIn, folder, "wrangler", [...args, "--config", join(folder, "wrangler.toml"), "--env="]);
}

function run(
  standIn: StandIn,
  folder: string,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; out: string }> {
  const child = spawn(command, args, {
    cwd: folder,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}`,
      CLOUDFLARE_API_BASE_URL: standIn.url,
      CLOUDFLARE_API_TOKEN: "stand-in-token",
      CLOUDFLARE_ACCOUNT_ID: STAND_IN_ACCOUNT,
      WRANGLER_SEND_METRICS: "false",
      CI: "1",
      ...env,
    },
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  // A run that waits on something (a question, a server) fails here with what it printed so far.
  const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
  return new Promise((resolve) =>
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, out: signal ? `${out}\n(stopped after 240 s, by ${signal})` : out });
    }),
  );
}
