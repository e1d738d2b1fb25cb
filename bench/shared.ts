// What the benchmarks need: a production build served by wrangler's local workerd, and a place
// for the figures (bench/results/<name>.json and the README between the <name> bench markers).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

/** `wrangler dev` with `args` on 127.0.0.1:`port`, quiet except for errors. */
export function wranglerDev(args: string[], port: number): ChildProcess {
  return spawn("wrangler", ["dev", ...args, "--port", String(port), "--ip", "127.0.0.1", "--log-level", "error"], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, CI: "true" },
  });
}

export async function waitFor(url: string) {
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not come up`);
}

export function publish(name: string, results: unknown, markdown: string) {
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(`bench/results/${name}.json`, JSON.stringify(results, null, 2));
  console.log(`\n${markdown}\n`);
  const readme = readFileSync("README.md", "utf8");
  const markers = new RegExp(`(<!-- bench:${name}:start -->\\n)[\\s\\S]*?(\\n<!-- bench:${name}:end -->)`);
  writeFileSync("README.md", readme.replace(markers, `$1${markdown}$2`));
}
