// What the operations scripts (setup, backup, restore, the restore drill) share: running wrangler
// against one configuration and environment, reading that configuration as wrangler resolves it,
// and stopping with one clear line.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { getPlatformProxy, unstable_readConfig } from "wrangler";

export function fail(message: string): never {
  console.error(`\n✗ ${message}`);
  process.exit(1);
}

export interface Target {
  /** The wrangler configuration file. */
  config: string;
  /** The environment under `[env.<name>]`, or null for the top level. */
  environment: string | null;
}

/** Runs wrangler for `target`; its output, or the run stops with wrangler's error. */
export function wrangler(
  target: Target,
  args: string[],
  options: { allowFailure?: boolean; input?: string; timeoutMs?: number } = {},
): { ok: boolean; out: string } {
  // An empty --env names the top level, which wrangler asks for once the file has environments.
  const full = [...args, "--config", target.config, `--env=${target.environment ?? ""}`];
  const run = spawnSync("wrangler", full, {
    encoding: "utf8",
    // Never a terminal: a question wrangler asks is answered by `input` or ends with the input.
    input: options.input ?? "",
    timeout: options.timeoutMs ?? 300_000,
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_HIDE_BANNER: "true" },
  });
  const out = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  if (run.error) fail(`wrangler ${args.join(" ")} did not finish: ${run.error.message}\n${out.trim()}`);
  if (run.status !== 0 && !options.allowFailure) fail(`wrangler ${args.join(" ")} failed:\n${out.trim()}`);
  return { ok: run.status === 0, out };
}

/** The parts of a resolved wrangler configuration these scripts read. */
export interface ShopConfig {
  name?: string;
  vars: Record<string, unknown>;
  d1_databases: { binding: string; database_name?: string; database_id?: string }[];
  r2_buckets: { binding: string; bucket_name?: string }[];
  ratelimits: { name: string; namespace_id: string }[];
  queues: { producers?: { binding: string; queue: string }[]; consumers?: { queue: string; dead_letter_queue?: string }[] };
  durable_objects: { bindings: { name: string; class_name: string }[] };
  migrations: unknown[];
  triggers: { crons?: string[] };
  assets?: { run_worker_first?: boolean | string[] };
}

/** The configuration as wrangler reads it for `target` (an environment's own bindings and names). */
export function readTarget(target: Target): ShopConfig {
  return unstable_readConfig({ config: target.config, env: target.environment ?? undefined }, { hideWarnings: true }) as ShopConfig;
}

/** The shop's one database and one downloads bucket in `target`. */
export function storesOf(target: Target): { database: { binding: string; name: string; id?: string }; bucket: string } {
  const config = readTarget(target);
  const database = config.d1_databases[0] ?? fail(`${target.config} binds no D1 database`);
  const bucket = config.r2_buckets[0]?.bucket_name ?? fail(`${target.config} binds no R2 bucket`);
  return {
    database: { binding: database.binding, name: database.database_name ?? database.binding, id: database.database_id },
    bucket: String(bucket),
  };
}

export interface BucketObject {
  key: string;
  size: number;
  etag: string;
  uploaded: string;
}

/** What backup.json says about a backup. */
export interface BackupManifest {
  createdAt: string;
  from: "remote" | "local";
  environment: string | null;
  database: string;
  bucket: string;
  objects: number;
}

/** What the listing needs of an R2 binding (the Worker's R2 types are not loaded in Node scripts). */
interface ListableBucket {
  list(options: { cursor?: string; limit?: number }): Promise<{
    objects: { key: string; size: number; etag: string; uploaded: Date }[];
    truncated: boolean;
    cursor?: string;
  }>;
}

/**
 * Runs `withConfig` with a scratch wrangler configuration that holds only `bindings`; given `state`, that
 * folder is the scratch configuration's .wrangler/state, where wrangler's local commands look.
 */
export async function withScratchConfig<T>(bindings: object, state: string | null, withConfig: (config: string) => Promise<T>): Promise<T> {
  const scratch = mkdtempSync(join(tmpdir(), "keyshop-scratch-"));
  try {
    if (state) {
      mkdirSync(join(scratch, ".wrangler"));
      symlinkSync(state, join(scratch, ".wrangler", "state"), "dir");
    }
    const config = join(scratch, "wrangler.json");
    writeFileSync(config, JSON.stringify({ name: "keyshop-scratch", compatibility_date: "2026-10-01", ...bindings }));
    return await withConfig(config);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every object in the local bucket of `target` (the dev state, or `state`), through wrangler's local bindings. */
export async function localObjects(of: Target, state: string | null): Promise<BucketObject[]> {
  const { bucket } = storesOf(of);
  // A configuration with the bucket alone: the shop's own would start its Durable Objects too.
  return withScratchConfig({ r2_buckets: [{ binding: "BUCKET", bucket_name: bucket }] }, null, async (config) => {
    const proxy = await getPlatformProxy<{ BUCKET: ListableBucket }>({
      configPath: config,
      persist: { path: join(state ?? join(dirname(of.config), ".wrangler", "state"), "v3") },
      remoteBindings: false,
    });
    try {
      const found: BucketObject[] = [];
      let cursor: string | undefined;
      do {
        const page = await proxy.env.BUCKET.list({ cursor, limit: 1000 });
        for (const object of page.objects)
          found.push({ key: object.key, size: object.size, etag: object.etag, uploaded: object.uploaded.toISOString() });
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
      return found;
    } finally {
      await proxy.dispose();
    }
  });
}
