// Keeps the static-asset routing true, as part of `npm run lint` (decision 122). Every path runs the
// Worker first except the static files, so wrangler.toml's `assets.run_worker_first` must start
// with "/*" and exclude the build's assets/ folder and each top-level entry of public/: a file added
// there and forgotten would be answered by the Worker (a 404 page) instead of the file. And each
// bench floor served "as the app is" (its own [assets]) must carry the same patterns, or its ratios
// would compare the app with a differently routed floor.
//
//   node scripts/check-asset-routing.ts
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { readTarget } from "./wrangler-run.ts";

const APP_CONFIG = "wrangler.toml";
const FLOORS = "bench/floors";
// Vite's output folder for hashed files (build.assetsDir), and public/'s files the router reads as
// its own settings rather than serving them.
const BUILT_ASSETS = "assets";
const ROUTER_SETTINGS = ["_headers", "_redirects"];

function patternsOf(config: string): string[] | null {
  const first = readTarget({ config, environment: null }).assets?.run_worker_first;
  return Array.isArray(first) ? first : null;
}

/** The patterns the static files need: the build's folder, then public/'s entries (a folder's with "/*"). */
function staticExclusions(): string[] {
  const entries = readdirSync("public").filter((name) => !ROUTER_SETTINGS.includes(name));
  return [`!/${BUILT_ASSETS}/*`, ...entries.map((name) => (statSync(join("public", name)).isDirectory() ? `!/${name}/*` : `!/${name}`))];
}

function routingProblems(): string[] {
  const problems: string[] = [];
  const app = patternsOf(APP_CONFIG);
  if (!app) return [`${APP_CONFIG}: assets.run_worker_first must be a list of patterns`];
  if (app[0] !== "/*") problems.push(`${APP_CONFIG}: assets.run_worker_first must start with "/*" (every page runs the Worker first)`);
  const missing = staticExclusions().filter((pattern) => !app.includes(pattern));
  if (missing.length > 0)
    problems.push(`${APP_CONFIG}: assets.run_worker_first lacks ${missing.join(", ")}: the file would reach the Worker`);
  for (const name of readdirSync(FLOORS).filter((file) => file.endsWith(".toml"))) {
    const config = join(FLOORS, name);
    if (!readTarget({ config, environment: null }).assets) continue;
    const floor = patternsOf(config);
    if (JSON.stringify(floor) !== JSON.stringify(app))
      problems.push(`${config}: served as the app is, so its run_worker_first must be ${APP_CONFIG}'s ${JSON.stringify(app)}`);
  }
  return problems;
}

const problems = routingProblems();
if (problems.length > 0) {
  console.error(problems.map((problem) => `  ${problem}`).join("\n"));
  process.exit(1);
}
