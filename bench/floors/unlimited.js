// The bench's rate-limit no-op: a Worker whose named rate-limiting bindings admit every call without
// counting it. Locally each limit() is a Durable Object writing to SQLite; with this, app and floor
// are measured with that simulation taken out of both. Only the bench's own entries use it, each
// served from a configuration without `ratelimits`: it is never part of a deployed Worker.
const admitAll = { limit: async () => ({ success: true }) };

/** `worker` seeing `names` as no-op rate limiters; the changed env is made once per env. */
export function unlimited(worker, names) {
  const envs = new WeakMap();
  const withoutLimits = (env) => {
    let changed = envs.get(env);
    if (!changed) {
      changed = { ...env, ...Object.fromEntries(names.map((name) => [name, admitAll])) };
      envs.set(env, changed);
    }
    return changed;
  };
  return {
    fetch: (request, env, ctx) => worker.fetch(request, withoutLimits(env), ctx),
    ...(worker.queue ? { queue: (batch, env, ctx) => worker.queue(batch, withoutLimits(env), ctx) } : {}),
    ...(worker.scheduled ? { scheduled: (controller, env, ctx) => worker.scheduled(controller, withoutLimits(env), ctx) } : {}),
  };
}
