// Keeps every wrangler environment a faithful copy of the top level, as part of `npm run lint`:
// wrangler does not carry vars and bindings into an environment, so a binding or setting added at
// the top level and forgotten under [env.staging] would only show as a broken staging Worker. Each
// environment must have the same variable names, bindings (D1, R2, rate limits, queue producers and
// consumers, Durable Objects), Durable Object migrations and cron triggers as the top level, and its
// own database, bucket and queues (never production's).
//
//   node scripts/check-environments.ts [wrangler.toml]
import { experimental_readRawConfig } from "wrangler";
import { readTarget, type ShopConfig } from "./wrangler-run.ts";

/** What must be the same in every environment, each as a sorted list of names. */
function shapeOf(config: ShopConfig): Record<string, string[]> {
  const sorted = (names: (string | undefined)[]) => names.map(String).sort();
  return {
    vars: sorted(Object.keys(config.vars ?? {})),
    "D1 bindings": sorted(config.d1_databases.map((db) => db.binding)),
    "R2 bindings": sorted(config.r2_buckets.map((bucket) => bucket.binding)),
    "rate limits": sorted(config.ratelimits.map((limit) => limit.name)),
    "queue producers": sorted((config.queues.producers ?? []).map((producer) => producer.binding)),
    "queue consumers": sorted(
      (config.queues.consumers ?? []).map((consumer) => `${consumer.dead_letter_queue ? "with" : "without"} a dead-letter queue`),
    ),
    "Durable Objects": sorted(config.durable_objects.bindings.map((binding) => `${binding.name} → ${binding.class_name}`)),
    "Durable Object migrations": sorted(config.migrations.map((migration) => JSON.stringify(migration))),
    crons: sorted(config.triggers.crons ?? []),
  };
}

/** The account's resources an environment uses: these must differ between environments. */
function resourcesOf(config: ShopConfig): string[] {
  return [
    ...config.d1_databases.map((db) => `D1 database ${db.database_name}`),
    ...config.r2_buckets.map((bucket) => `R2 bucket ${bucket.bucket_name}`),
    ...(config.queues.producers ?? []).map((producer) => `queue ${producer.queue}`),
    ...(config.queues.consumers ?? []).flatMap((consumer) => [
      `queue ${consumer.queue}`,
      ...(consumer.dead_letter_queue ? [`queue ${consumer.dead_letter_queue}`] : []),
    ]),
    ...config.ratelimits.map((limit) => `rate-limit namespace ${limit.namespace_id}`),
    `Worker ${config.name}`,
  ];
}

function environmentProblems(configPath: string): string[] {
  const environments = Object.keys(experimental_readRawConfig({ config: configPath }).rawConfig.env ?? {});
  const read = (env?: string) => readTarget({ config: configPath, environment: env ?? null });
  const top = read();
  const topShape = shapeOf(top);
  const topResources = new Set(resourcesOf(top));
  const problems: string[] = [];
  for (const env of environments) {
    const shape = shapeOf(read(env));
    for (const [what, names] of Object.entries(topShape)) {
      const theirs = shape[what]!;
      const missing = names.filter((name) => !theirs.includes(name));
      const extra = theirs.filter((name) => !names.includes(name));
      if (missing.length > 0) problems.push(`[env.${env}] lacks ${what} the top level has: ${missing.join(", ")}`);
      if (extra.length > 0) problems.push(`[env.${env}] has ${what} the top level lacks: ${extra.join(", ")}`);
    }
    const shared = resourcesOf(read(env)).filter((resource) => topResources.has(resource));
    if (shared.length > 0) problems.push(`[env.${env}] uses production's own ${shared.join(", ")}: give it names of its own`);
  }
  return problems;
}

const configPath = process.argv[2] ?? "wrangler.toml";
const problems = environmentProblems(configPath);
if (problems.length > 0) {
  console.error(`${configPath}:\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
  process.exit(1);
}
